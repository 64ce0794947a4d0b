/**
 * `/sessions/:id`: transcript, the clarification overlay and banner, consent
 * and action cards, the queue and the composer, with Stop and Delete in its
 * header; or, for a session deleted, lost to this person or never theirs,
 * only why (`sessionPresence`). Reads the models; owns only drafts.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { useModelState, useServices, useUserInputs } from '../app/services.js';
import { forgetPendingOfLocation, navigate, pendingOfLocation } from '../app/router.js';
import { useClarificationGroup } from '../hooks/use-clarification-group.js';
import { useMe } from '../hooks/use-me.js';
import { useMemberNames } from '../hooks/use-member-names.js';
import { useSessionFailure } from '../hooks/use-session-failure.js';
import { useFocusRescue, type LostFocus } from '../hooks/use-focus-rescue.js';
import { useSheetCover } from '../hooks/use-sheet-cover.js';
import {
  authorIdsOf,
  userAuthorOf,
  type MemberNames,
  type UserAuthor,
} from '../model/message-author.js';
import { isExternalSession } from '../model/external-session.js';
import { sessionLabel } from '../model/session-label.js';
import { isTranscriptLabel, toolCallLabel, type ToolCallLabel } from '../model/tool-call-label.js';
import { requestsOfSession, waitingRequests } from '../model/user-inputs.js';
import {
  activeBundleOfSession,
  questionOfRow,
  sessionPresence,
  type BundleState,
} from '../model/read-model.js';
import { shownTranscript, transcriptRead } from '../model/transcript-window.js';
import {
  DELIVERY_UNCONFIRMED_TYPE,
  deliveryUnconfirmedNoteOf,
  USER_INPUT_DECISION_TYPE,
  USER_INPUT_DECISION_UNCONFIRMED_TYPE,
  USER_INPUT_DECISION_UNKEPT_TYPE,
  USER_INPUT_ENDED_TYPE,
  USER_INPUT_REFUSED_TYPE,
  toolCallStateOf,
  turnInterruptedNoteOf,
  turnNoteOf,
  type TurnNote,
  type MessageView,
} from '../model/types.js';
import { ClarificationHistoryRow } from './clarification-history.js';
import { UserInputDecisionRow } from './decision-record.js';
import { UserInputNoteRow } from './user-input-note.js';
import { UserText } from './user-text.js';
import { ClarificationOverlay } from './clarification-overlay.js';
import { ClarificationStatusBanner } from './clarification-status-banner.js';
import { DeliveryUnconfirmedNoteRow } from './delivery-unconfirmed-note.js';
import { EarlierMessages } from './earlier-messages.js';
import { NextWaitingItem } from './next-waiting-item.js';
import { RelativeTime } from './relative-time.js';
import { SessionActions } from './session-actions.js';
import { SessionFailureBanner } from './session-failure.js';
import { SessionQueue, type OfferedText } from './session-queue.js';
import { Composer } from './composer.js';
import { TaskOwner } from './task-owner.js';
import { UserInputPanel, useSessionAwaitsInput } from './user-input-panel.js';

export function SessionView({ sessionId }: { sessionId: string }) {
  const { t } = useTranslation();
  const { sync } = useServices();
  const state = useModelState();
  const session = state.sessions[sessionId];
  const task = session ? state.tasks[session.task_id] : undefined;
  // The bundle a person picked among several waiting ones (here, or in the inbox: the address
  // names it); the longest waiting otherwise.
  const [chosen, setChosen] = useState<string | undefined>(pendingOfLocation);
  useEffect(forgetPendingOfLocation, []);
  // "Answer now" chose it: its first field takes focus once the overlay shows it.
  const [focusFieldFor, setFocusFieldFor] = useState<string>();
  const answerNow = useCallback((pendingId: string) => {
    setChosen(pendingId);
    setFocusFieldFor(pendingId);
  }, []);
  const fieldFocused = useCallback(() => {
    setFocusFieldFor(undefined);
  }, []);
  const live = activeBundleOfSession(state, sessionId, chosen);
  const group = useClarificationGroup(live);
  const userInputs = useUserInputs();
  const label = sessionLabel(
    session,
    live,
    waitingRequests(userInputs)
      .filter((entry) => entry.view.session_id === sessionId)
      .map((entry) => entry.view.kind),
  );
  const messages = shownTranscript(state, sessionId);
  const newestId = messages.at(-1)?.id;
  const skippedActionTimes = requestsOfSession(userInputs, sessionId).flatMap((entry) =>
    entry.view.kind === 'action' && entry.view.decision === 'skip' ? [entry.view.created_at] : [],
  );
  const awaitsInput = useSessionAwaitsInput(sessionId);
  const me = useMe();
  const names = useMemberNames(task?.workspace_id, authorIdsOf(messages));
  const failure = useSessionFailure(sessionId, session?.task_id, session?.state === 'failed');
  // Its person was deleted: it can never run again, so nothing may be sent to it. An agent
  // Clarion did not start takes no message either (the server refuses every one).
  const external = isExternalSession(state, sessionId);
  const takesMessages = !failure.ownerDeleted && !external;
  const [offered, setOffered] = useState<OfferedText>();
  const [queuedIds, setQueuedIds] = useState<readonly string[]>();
  const dockRef = useRef<HTMLDivElement>(null);
  const composerRef = useRef<HTMLTextAreaElement>(null);
  const focusComposer = useCallback(() => {
    composerRef.current?.focus();
  }, []);
  // Asked while the sheet still covers the composer (collapsing it): focus waits for the
  // render that closes the sheet, whose cover is lifted before this page's effects run.
  const [composerAsked, setComposerAsked] = useState(0);
  const askComposer = useCallback(() => {
    setComposerAsked((asked) => asked + 1);
  }, []);
  useEffect(() => {
    if (composerAsked > 0) focusComposer();
  }, [composerAsked, focusComposer]);

  useEffect(() => {
    sync.openSession(sessionId);
    return () => {
      sync.closeSession(sessionId);
    };
  }, [sessionId, sync]);

  useEffect(() => {
    // The page's end, not the transcript's: the sticky dock would cover the newest rows. Asking
    // the dock into view did nothing once it stuck at the window's bottom (it is in view
    // there), which left a long transcript at its top. Only a new newest row scrolls there;
    // earlier rows loaded above keep the reader where they are.
    if (newestId === undefined) return;
    window.scrollTo({ top: document.documentElement.scrollHeight });
  }, [newestId]);

  const showOverlay = group.formVisible;
  const sheetRef = useRef<HTMLDivElement>(null);
  const sheetOpen = (showOverlay && !group.collapsed) || awaitsInput;
  // On a phone the open sheet covers the window's end: what it covers leaves the tab order.
  useSheetCover(sheetRef, sheetOpen);
  const overlayShown = useRef(showOverlay);
  useEffect(() => {
    // The overlay went away under the person's focus (answered, expired): the composer takes it.
    const active = document.activeElement;
    if (overlayShown.current && !showOverlay && (!active || active === document.body)) {
      focusComposer();
    }
    overlayShown.current = showOverlay;
  }, [focusComposer, showOverlay]);

  // An answer's button disabled, or its card or banner gone, under the person's focus: the
  // request's card wherever it now is, else the question's overlay while it shows, else the
  // composer.
  const keepFocusNear = useCallback((lost: LostFocus, root: HTMLElement) => {
    const card =
      lost.requestId === undefined
        ? null
        : root.querySelector<HTMLElement>(
            `.user-input-card[data-request-id="${CSS.escape(lost.requestId)}"]`,
          );
    return card ?? root.querySelector<HTMLElement>('.clarification-overlay') ?? composerRef.current;
  }, []);
  const rescueIn = useFocusRescue(
    '.user-input-card, .clarification-overlay, [data-testid="clarification-banner"]',
    keepFocusNear,
  );
  const dock = useCallback(
    (node: HTMLDivElement | null) => {
      dockRef.current = node;
      return rescueIn(node);
    },
    [rescueIn],
  );

  const presence = sessionPresence(state, sessionId);
  if (presence.kind !== 'shown') {
    // Deleted while shown (here or elsewhere) says so, and so does a session this person lost
    // (nothing in it can be answered or sent); otherwise it may never have been theirs.
    const deletion = presence.kind === 'deleted' ? presence.how : undefined;
    return (
      <section
        className="session-view"
        data-testid="session-missing"
        data-presence={presence.kind}
        data-deleted={deletion ?? 'none'}
      >
        <BackToInbox />
        <p role={presence.kind === 'not_found' ? undefined : 'status'}>
          {t(
            deletion === 'task.deleted'
              ? 'session.taskDeleted'
              : deletion
                ? 'session.deleted'
                : presence.kind === 'access_lost'
                  ? 'session.accessLost'
                  : 'session.notFound',
          )}
        </p>
      </section>
    );
  }

  return (
    <div className="session-view">
      <header className="page-header">
        <BackToInbox />
        <h1 className="page-title">{task ? <UserText text={task.title} /> : t('session.title')}</h1>
        <TaskOwner owner={task?.created_by} people={{ me, names: names.names }} />
        <span
          className="state-chip"
          data-testid="session-state"
          data-state={session?.state ?? 'loading'}
          data-label={label}
          aria-busy={label === 'loading' ? true : undefined}
        >
          {t(`session.state.${label}`)}
        </span>
        <SessionActions sessionId={sessionId} />
      </header>
      {/* The dock sticks within this box only: however tall it grows, it never covers the header. */}
      <div className="session-body">
        <section
          className="transcript"
          aria-label={t('session.transcript')}
          data-testid="transcript"
          // Takes focus from "Show earlier messages" once the first page is read and it goes.
          tabIndex={-1}
        >
          <EarlierMessages sessionId={sessionId} firstShownId={messages[0]?.id} />
          {!transcriptRead(state, sessionId) ? (
            <p className="muted" data-testid="transcript-loading">
              {t('app.loading')}
            </p>
          ) : messages.length === 0 ? (
            <p className="muted">{t('session.empty')}</p>
          ) : null}
          {messages.map((message, index) => (
            <TranscriptRow
              key={message.id}
              message={message}
              active={live}
              bundles={state.bundles}
              onAnswerNow={answerNow}
              takesMessages={takesMessages}
              me={me}
              names={names}
              toolLabel={
                message.type === 'tool_call'
                  ? toolCallLabel(messages, index, state.bundles, skippedActionTimes)
                  : null
              }
            />
          ))}
        </section>
        <div className="session-dock" ref={dock}>
          {session?.state === 'failed' ? (
            <SessionFailureBanner sessionId={sessionId} read={failure} />
          ) : null}
          {/* Every pending kind shares one sheet: on a phone two fixed sheets would cover each other. */}
          <div
            ref={sheetRef}
            className="question-sheet"
            data-testid="pending-sheet"
            data-open={sheetOpen}
          >
            <ClarificationStatusBanner group={group} />
            {showOverlay ? (
              <ClarificationOverlay
                group={group}
                onClose={askComposer}
                focusFieldFor={focusFieldFor}
                onFieldFocused={fieldFocused}
              />
            ) : null}
            <UserInputPanel sessionId={sessionId} part="waiting" />
          </div>
          <UserInputPanel sessionId={sessionId} part="settled" />
          <NextWaitingItem sessionId={sessionId} />
          <SessionQueue
            sessionId={sessionId}
            revision={session?.revision ?? -1}
            onEditLost={(text) => {
              setOffered({ text });
            }}
            onListed={setQueuedIds}
            afterLast={composerRef}
          />
          {external ? (
            // The server refuses every message to an agent it did not start: offer none.
            <p className="muted composer-external" data-testid="composer-external">
              {t('composer.external')}
            </p>
          ) : !takesMessages ? (
            <p className="muted composer-closed" data-testid="composer-closed">
              {t('composer.ownerDeleted')}
            </p>
          ) : (
            <Composer
              sessionId={sessionId}
              inputRef={composerRef}
              offered={offered}
              queuedIds={queuedIds}
            />
          )}
        </div>
      </div>
    </div>
  );
}

function BackToInbox() {
  const { t } = useTranslation();
  return (
    <a
      href="/"
      className="button button-link"
      onClick={(event) => {
        event.preventDefault();
        navigate('/');
      }}
    >
      ← {t('nav.backToInbox')}
    </a>
  );
}

function TranscriptRow({
  message,
  active,
  bundles,
  onAnswerNow,
  takesMessages,
  me,
  names,
  toolLabel,
}: {
  message: MessageView;
  active: BundleState | undefined;
  bundles: Readonly<Record<string, BundleState>>;
  onAnswerNow: (pendingId: string) => void;
  /** Whether the session can take a new message (a late answer is one). */
  takesMessages: boolean;
  /** The reader's user ID, once known: only their own messages say "You". */
  me: string | undefined;
  names: MemberNames;
  /** What a tool call's chip says (`tool-call-label.ts`); null for other rows. */
  toolLabel: ToolCallLabel | null;
}) {
  const { t } = useTranslation();
  const row = questionOfRow(message);
  if (row) {
    // The active bundle is answered in the overlay, not in the transcript.
    if (active && row.pendingId === active.pending_id) return null;
    return (
      <ClarificationHistoryRow
        message={message}
        question={row.question}
        bundle={bundles[row.pendingId]}
        onAnswerNow={onAnswerNow}
        lateAnswers={takesMessages}
      />
    );
  }
  if (message.type === USER_INPUT_DECISION_TYPE) return <UserInputDecisionRow message={message} />;
  // An answer that was refused: the person was told then, and it never counted.
  if (message.type === USER_INPUT_DECISION_UNKEPT_TYPE) return null;
  const note =
    message.type === DELIVERY_UNCONFIRMED_TYPE
      ? deliveryUnconfirmedNoteOf(message.metadata)
      : undefined;
  if (note) return <DeliveryUnconfirmedNoteRow message={message} note={note} />;
  if (
    message.type === USER_INPUT_ENDED_TYPE ||
    message.type === USER_INPUT_DECISION_UNCONFIRMED_TYPE ||
    message.type === USER_INPUT_REFUSED_TYPE
  ) {
    return <UserInputNoteRow message={message} />;
  }
  if (message.type === 'tool_call' && message.content === '') return null;
  const author =
    message.author === 'user' || message.author === 'agent' ? message.author : 'system';
  const toolStatus = message.type === 'tool_call' ? toolCallStateOf(message.metadata) : null;
  const label = toolLabel ?? toolStatus;
  const interrupted = turnInterruptedNoteOf(message.metadata);
  const worded = author === 'system' ? turnNoteOf(message.metadata) : undefined;
  const who: UserAuthor | undefined =
    author === 'user' ? userAuthorOf(message.metadata, me, names) : undefined;
  return (
    <article className={`message message-${author}`} data-type={message.type} data-testid="message">
      <span
        className="message-author"
        data-author={who?.kind}
        aria-busy={who?.kind === 'unknown_yet' ? true : undefined}
      >
        {who === undefined ? t(`session.author.${author}`) : <UserAuthorLabel who={who} />}
      </span>
      <RelativeTime at={message.created_at} />
      {toolStatus ? (
        <span
          className="chip"
          data-testid="tool-status"
          data-status={toolStatus}
          data-label={label}
        >
          {label !== null && isTranscriptLabel(label)
            ? t(`decide.toolStatus.${label}`)
            : t(`session.toolStatus.${label ?? toolStatus}`)}
        </span>
      ) : null}
      <p className="message-content">
        {interrupted
          ? t(`session.turnInterrupted.${interrupted.loss}`)
          : worded
            ? wordedTurnNote(t, worded)
            : message.content}
      </p>
    </article>
  );
}

/** The server's line about how a turn went, in the reader's language. */
function wordedTurnNote(t: TFunction, note: TurnNote): string {
  switch (note.kind) {
    case 'fresh_start':
      return t('session.turnNote.freshStart');
    case 'queued_author_left':
      return t('session.turnNote.queuedAuthorLeft');
    case 'cancelled':
      return note.byName === null
        ? t('session.turnNote.cancelled')
        : t('session.turnNote.cancelledBy', { name: note.byName });
    case 'agent_error':
    case 'not_taken':
      return t(`session.turnNote.${note.kind}`, { reason: note.reason });
  }
}

/** A person's row's author; a placeholder, not a claim, while who it is is still being read. */
function UserAuthorLabel({ who }: { who: UserAuthor }) {
  const { t } = useTranslation();
  switch (who.kind) {
    case 'named':
      return <UserText text={who.name} />;
    case 'you':
      return t('session.author.user');
    case 'someone':
      return t('session.author.someone');
    case 'unknown_yet':
      return t('session.author.unknownYet');
  }
}
