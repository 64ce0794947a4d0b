/**
 * The session header's Stop, Delete session and Delete task. Stop is offered
 * while the agent's turn is open and says how it ended, as the events tell
 * it (`stopProgress`); a delete asks first, in the page, saying what goes,
 * and on success the tab leaves the deleted view (to the task's other
 * session, or the inbox). A failure says why and changes nothing here: the
 * session shown is whatever the events say it is.
 */
import { useRef, useState, type RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import { useModelState, useServices } from '../app/services.js';
import { navigate } from '../app/router.js';
import type { ApiFailure } from '../model/api.js';
import {
  actionFailureOf,
  pathAfterDeletion,
  stopProgress,
  turnIsOpen,
} from '../model/session-actions.js';
import { useFailureReason } from '../hooks/use-failure-reason.js';
import { useBusyAction } from '../hooks/use-busy-action.js';
import { useFocusRescue } from '../hooks/use-focus-rescue.js';
import { ConfirmStep } from './confirm-step.js';
import { UserText } from './user-text.js';
import { webSessionPath } from '../../../src/wire/constants.js';

type StopState =
  | { phase: 'idle' }
  /** Stop was pressed in turn `turnId` and its reply is on the way. */
  | { phase: 'asking'; turnId: string | undefined }
  /** The agent was asked (202); `turnId` is the turn Stop was pressed in. */
  | { phase: 'asked'; turnId: string | undefined }
  | { phase: 'failed'; failure: ApiFailure };

type DeleteTarget = 'session' | 'task';

type DeleteState =
  | { phase: 'closed' }
  | { phase: 'confirming' | 'deleting'; target: DeleteTarget }
  | { phase: 'failed'; target: DeleteTarget; failure: ApiFailure };

export function SessionActions({ sessionId }: { sessionId: string }) {
  const { t } = useTranslation();
  const { api, model } = useServices();
  const state = useModelState();
  const session = state.sessions[sessionId];
  const [stop, setStop] = useState<StopState>({ phase: 'idle' });
  const [removal, setRemoval] = useState<DeleteState>({ phase: 'closed' });
  const deleteSessionRef = useRef<HTMLButtonElement>(null);
  const deleteTaskRef = useRef<HTMLButtonElement>(null);
  const outcomeRef = useRef<HTMLParagraphElement>(null);
  const stopping = useBusyAction();
  // Stop goes once the turn ends: the keyboard's place is then what Stop says happened, even
  // with its reply still on the way; never a Delete beside it, where Enter would do harm. A turn
  // that ended with no Stop pressed is told by the transcript.
  const keepStopFocus = useFocusRescue(
    '[data-testid="session-stop"]',
    (_lost, root) =>
      outcomeRef.current ??
      root.closest('.session-view')?.querySelector<HTMLElement>('[data-testid="transcript"]'),
  );
  if (!session) return null;
  const taskId = session.task_id;
  const title = state.tasks[taskId]?.title ?? '';

  const askStop = async () => {
    const turnId = model.getState().sessions[sessionId]?.latest_turn?.turn_id;
    setStop({ phase: 'asking', turnId });
    const result = await api.cancelTurn(sessionId);
    setStop(result.ok ? { phase: 'asked', turnId } : { phase: 'failed', failure: result });
  };

  const confirmDelete = async (target: DeleteTarget) => {
    setRemoval({ phase: 'deleting', target });
    const result =
      target === 'task' ? await api.deleteTask(taskId) : await api.deleteSession(sessionId);
    if (!result.ok) {
      setRemoval({ phase: 'failed', target, failure: result });
      return;
    }
    const path = pathAfterDeletion(model.getState(), {
      sessionId,
      taskId,
      withTask: target === 'task',
    });
    // Only a tab still on the deleted view leaves it: the person may have moved on meanwhile.
    if (window.location.pathname === webSessionPath(sessionId)) navigate(path);
  };

  const open = removal.phase !== 'closed';
  return (
    <>
      <div
        ref={keepStopFocus}
        className="session-actions"
        role="group"
        aria-label={t('session.actions.label')}
      >
        {turnIsOpen(session.state) ? (
          <button
            type="button"
            className="button"
            data-testid="session-stop"
            // Not `disabled`: that would drop the keyboard's focus on it to the page.
            aria-disabled={stopping.busy}
            onClick={() => void stopping.run(askStop)}
          >
            {stopping.busy ? t('session.actions.stopping') : t('session.actions.stop')}
          </button>
        ) : null}
        <DeleteButton
          buttonRef={deleteSessionRef}
          testId="session-delete"
          label={t('session.actions.deleteSession')}
          expanded={open && removal.target === 'session'}
          disabled={removal.phase === 'deleting'}
          onClick={() => {
            setRemoval({ phase: 'confirming', target: 'session' });
          }}
        />
        <DeleteButton
          buttonRef={deleteTaskRef}
          testId="task-delete"
          label={t('session.actions.deleteTask')}
          expanded={open && removal.target === 'task'}
          disabled={removal.phase === 'deleting'}
          onClick={() => {
            setRemoval({ phase: 'confirming', target: 'task' });
          }}
        />
      </div>
      <StopOutcome
        stop={stop}
        progress={stopProgressOf(stop, state, sessionId)}
        outcomeRef={outcomeRef}
      />
      {open ? (
        <DeleteConfirm
          // A new target is a new question: the step opens again, on its safe choice.
          key={removal.target}
          removal={removal}
          title={title}
          opener={removal.target === 'task' ? deleteTaskRef : deleteSessionRef}
          onConfirm={() => void confirmDelete(removal.target)}
          onCancel={() => {
            setRemoval({ phase: 'closed' });
          }}
        />
      ) : null}
    </>
  );
}

function stopProgressOf(
  stop: StopState,
  state: Parameters<typeof stopProgress>[0],
  sessionId: string,
) {
  if (stop.phase === 'asked') return stopProgress(state, sessionId, stop.turnId);
  if (stop.phase !== 'asking') return undefined;
  // The events may tell the turn's end before the reply does: said at once, as it will be then.
  const progress = stopProgress(state, sessionId, stop.turnId);
  return progress === 'stopping' ? undefined : progress;
}

function DeleteButton(props: {
  buttonRef: RefObject<HTMLButtonElement | null>;
  testId: string;
  label: string;
  expanded: boolean;
  disabled: boolean;
  onClick: () => void;
}) {
  return (
    <button
      ref={props.buttonRef}
      type="button"
      className="button"
      data-testid={props.testId}
      aria-expanded={props.expanded}
      disabled={props.disabled}
      onClick={props.onClick}
    >
      {props.label}
    </button>
  );
}

function StopOutcome({
  stop,
  progress,
  outcomeRef,
}: {
  stop: StopState;
  progress: ReturnType<typeof stopProgress> | undefined;
  outcomeRef: RefObject<HTMLParagraphElement | null>;
}) {
  const { t } = useTranslation();
  const reason = useFailureReason();
  if (stop.phase === 'failed') {
    return (
      <p
        ref={outcomeRef}
        tabIndex={-1}
        className="error session-actions-outcome"
        role="alert"
        data-testid="session-stop-outcome"
        data-outcome="failed"
      >
        {t('session.actions.stopFailed', { reason: reason(stop.failure) })}
      </p>
    );
  }
  // A deleted session's view is replaced; nothing to say here about it.
  if (progress === undefined || progress === 'gone') return null;
  const text = {
    stopping: t('session.actions.stopAsked'),
    stopped: t('session.actions.stopped'),
    not_running: t('session.actions.notRunning'),
  }[progress];
  return (
    <p
      ref={outcomeRef}
      tabIndex={-1}
      className="muted session-actions-outcome"
      role="status"
      data-testid="session-stop-outcome"
      data-outcome={progress}
    >
      {text}
    </p>
  );
}

function DeleteConfirm(props: {
  removal: Exclude<DeleteState, { phase: 'closed' }>;
  title: string;
  opener: RefObject<HTMLButtonElement | null>;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const { t } = useTranslation();
  const reason = useFailureReason();
  const { removal } = props;
  const target = removal.target;
  const deleting = removal.phase === 'deleting';
  const refused =
    removal.phase === 'failed' && actionFailureOf(removal.failure) === 'storage'
      ? t(target === 'task' ? 'session.actions.refusedTask' : 'session.actions.refusedSession')
      : undefined;
  return (
    <ConfirmStep
      testId="delete-confirm"
      className="confirm-step session-delete-confirm"
      subject={
        target === 'task' ? (
          <strong>
            <UserText text={props.title} />
          </strong>
        ) : undefined
      }
      prompt={t(
        target === 'task' ? 'session.actions.confirmTask' : 'session.actions.confirmSession',
      )}
      error={
        removal.phase === 'failed'
          ? (refused ?? t('session.actions.deleteFailed', { reason: reason(removal.failure) }))
          : undefined
      }
      errorTestId="delete-failed"
      yes={
        deleting
          ? t('session.actions.deleting')
          : t(target === 'task' ? 'session.actions.deleteTask' : 'session.actions.deleteSession')
      }
      keep={t('session.actions.keep')}
      yesTestId="delete-confirm-yes"
      keepTestId="delete-confirm-cancel"
      pending={deleting}
      opener={props.opener}
      onConfirm={props.onConfirm}
      onKeep={props.onCancel}
    />
  );
}
