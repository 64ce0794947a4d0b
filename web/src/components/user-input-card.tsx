/**
 * `UserInputCard`: one consent, action or form request, the same card in the inbox
 * and the session view. The frame shows the kind, the task (in the inbox), the
 * deadline while it waits and the state of this tab's answer; the kind's body
 * shows the choices or, once settled, what happened.
 */
import { useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import { navigate } from '../app/router.js';
import { useServices } from '../app/services.js';
import { useNow } from '../hooks/use-now.js';
import { useUserInputResponse, type ResponseState } from '../hooks/use-user-input-response.js';
import { useMe } from '../hooks/use-me.js';
import { responderLabel } from '../model/settled-elsewhere.js';
import type { Responder, UserInputAnswer, UserInputView } from '../model/types.js';
import {
  decidedFirst,
  formatRemaining,
  outcomeOf,
  type UserInputEntry,
  type UserInputOutcome,
} from '../model/user-inputs.js';
import { ActionBody } from './action-card.js';
import { ConsentBody } from './consent-card.js';
import { FormBody } from './form-card.js';
import { RelativeTime } from './relative-time.js';
import { UndoButtons } from './undo-buttons.js';
import { UserText } from './user-text.js';
import { webSessionPath } from '../../../src/wire/constants.js';
import { useRefusalReason } from '../hooks/use-failure-reason.js';

/** What a kind's body gets from the frame. */
export interface UserInputBodyProps<V extends UserInputView> {
  view: V;
  outcome: UserInputOutcome;
  /** Show the choices (otherwise the outcome). */
  choices: boolean;
  /** An answer from this tab is on its way (or in its undo window): choices are disabled. */
  busy: boolean;
  pending: UserInputAnswer | undefined;
  respond: (answer: UserInputAnswer) => void;
  /** For Reject and Skip: sent once the undo window has passed. */
  respondAfterUndo: (answer: UserInputAnswer) => void;
}

const KIND_LABELS = {
  consent: 'userInput.consentLabel',
  action: 'userInput.actionLabel',
  form: 'formCard.label',
} as const satisfies Record<UserInputView['kind'], string>;

/** The data attribute tests and styles read: one value per distinct outcome. */
function outcomeKey(outcome: UserInputOutcome): string {
  if (outcome.kind !== 'chosen') return outcome.kind;
  if (outcome.remembered) return 'remembered';
  return outcome.allowed ? 'allowed' : 'rejected';
}

/** Whether this tab still offers the choices: waiting, and not already answered from here. */
function offersChoices(outcome: UserInputOutcome, response: ResponseState): boolean {
  if (outcome.kind !== 'waiting') return false;
  return (
    response.phase !== 'answered' &&
    response.phase !== 'already_settled' &&
    response.phase !== 'agent_exited' &&
    response.phase !== 'gone'
  );
}

export function UserInputCard(props: {
  entry: UserInputEntry;
  taskTitle?: string;
  /** Its title's heading level: one below the page's or section's heading it sits under. */
  headingLevel?: 2 | 3;
}) {
  const { t } = useTranslation();
  const { entry, taskTitle } = props;
  const Heading = props.headingLevel === 3 ? 'h3' : 'h2';
  const { view } = entry;
  const response = useUserInputResponse(view.id);
  const me = useMe();
  const outcome = outcomeOf(entry);
  const choices = offersChoices(outcome, response.state);
  const held =
    response.state.phase === 'submitting' || response.state.phase === 'undo'
      ? response.state.answer
      : undefined;
  const body = {
    outcome,
    choices,
    busy: held !== undefined,
    pending: held,
    respond: response.respond,
    respondAfterUndo: response.respondAfterUndo,
  };
  const path = webSessionPath(view.session_id);

  return (
    <article
      className="user-input-card"
      data-testid="user-input-card"
      data-request-id={view.id}
      data-kind={view.kind}
      data-status={entry.retired ? 'retired' : view.status}
      data-outcome={outcomeKey(outcome)}
      aria-busy={body.busy}
      // Takes the focus of an answer's button gone once it was pressed.
      tabIndex={-1}
    >
      <header className="user-input-header">
        <span className="chip user-input-kind" data-kind={view.kind}>
          {t(KIND_LABELS[view.kind])}
        </span>
        {taskTitle !== undefined ? (
          <a
            href={path}
            className="user-input-task"
            onClick={(event) => {
              event.preventDefault();
              navigate(path);
            }}
          >
            <UserText text={taskTitle} />
          </a>
        ) : null}
        <RelativeTime at={view.created_at} />
      </header>
      <Heading className="user-input-title">
        <UserText text={view.title} />
      </Heading>
      {view.kind === 'consent' ? <ConsentBody view={view} {...body} /> : null}
      {view.kind === 'action' ? <ActionBody view={view} {...body} /> : null}
      {view.kind === 'form' ? <FormBody view={view} {...body} /> : null}
      {choices && view.deadline_at !== null ? <Deadline at={view.deadline_at} /> : null}
      <ResponseStatus
        state={response.state}
        waiting={outcome.kind === 'waiting'}
        decidedFirst={decidedFirst(entry, me)}
        retry={response.retry}
        undo={response.undo}
        sendNow={response.sendNow}
      />
    </article>
  );
}

function Deadline({ at }: { at: string }) {
  const { t, i18n } = useTranslation();
  const now = useNow(1000);
  const deadline = Date.parse(at);
  const remaining = deadline - now;
  const clock = new Date(deadline).toLocaleTimeString(i18n.resolvedLanguage);
  return (
    <p className="user-input-deadline muted" data-testid="user-input-deadline">
      <time dateTime={at} title={clock}>
        {remaining > 0
          ? t('userInput.deadline', { time: formatRemaining(remaining), clock })
          : t('userInput.deadlinePassed')}
      </time>
    </p>
  );
}

function ResponseStatus(props: {
  state: ResponseState;
  waiting: boolean;
  /** Who decided the request before this tab's answer arrived, if a person did. */
  decidedFirst: Responder | null;
  retry: () => void;
  undo: () => void;
  sendNow: () => void;
}) {
  const { t } = useTranslation();
  const refusalReason = useRefusalReason();
  const { model } = useServices();
  const connection = useSyncExternalStore(
    model.subscribe,
    () => model.getState().connection,
    () => model.getState().connection,
  );
  const { state } = props;
  // A deadline or a sweep is said by the outcome itself; a person first is said here.
  if (!props.waiting && props.decidedFirst) return <DecidedFirst by={props.decidedFirst} />;
  switch (state.phase) {
    case 'undo':
      return (
        <div className="banner banner-info undo-banner" role="status" data-testid="user-input-undo">
          <span>
            {'option_id' in state.answer
              ? t('decide.undo.rejecting')
              : t('decide.undo.skippingAction')}
          </span>
          <UndoButtons undo={props.undo} sendNow={props.sendNow} />
        </div>
      );
    case 'submitting':
      return (
        <p className="user-input-status" role="status" data-testid="user-input-status">
          <span className="spinner" aria-hidden="true" /> {t('userInput.submitting')}
        </p>
      );
    case 'error':
      // Settled meanwhile (perhaps by this very answer): the outcome says how, nothing to retry.
      if (!props.waiting) return null;
      return (
        <div
          className="banner banner-error"
          role="alert"
          data-testid="user-input-error"
          data-waiting={connection !== 'live'}
        >
          {/* Sent again by itself when the connection returns (use-user-input-response). */}
          <span>{connection === 'live' ? t('userInput.error') : t('decide.errorWaiting')}</span>
          <button
            type="button"
            className="button button-primary"
            data-testid="user-input-retry"
            onClick={props.retry}
          >
            {t('userInput.retry')}
          </button>
        </div>
      );
    case 'refused':
      return (
        <p className="user-input-status error" role="alert" data-testid="user-input-error">
          {t('userInput.refused', { reason: refusalReason(state.code) })}
        </p>
      );
    case 'already_settled':
      // Only until the settled event says how it ended.
      return props.waiting ? (
        <p className="user-input-status muted" role="status" data-testid="user-input-status">
          {t('userInput.alreadySettled')}
        </p>
      ) : null;
    case 'agent_exited':
      // Until the settled event says so too; then the outcome says it.
      return props.waiting ? (
        <p className="user-input-status muted" role="status" data-testid="user-input-status">
          {t('userInput.agentExited')}
        </p>
      ) : null;
    case 'gone':
      return (
        <p className="user-input-status muted" role="status" data-testid="user-input-status">
          {t('userInput.gone')}
        </p>
      );
    case 'idle':
    case 'answered':
      return null;
  }
}

/** This tab's choice lost to an earlier decision: whose, and where, so nobody takes it for theirs. */
function DecidedFirst({ by }: { by: Responder }) {
  const { t } = useTranslation();
  const me = useMe();
  const label = responderLabel(by, me);
  return (
    <p
      className="user-input-status"
      role="status"
      data-testid="user-input-status"
      data-state="decided-first"
      data-by={label}
    >
      {t(`userInput.decidedFirst.${label}`, {
        name: by.name,
        surface: t(`decision.surface.${by.surface}`),
      })}
    </p>
  );
}
