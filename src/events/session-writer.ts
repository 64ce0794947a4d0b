/**
 * The session write unit: the one way a service changes a session and tells
 * subscribers about it.
 *
 * Owns the order of every session write: lock the session, run the caller's
 * changes (the caller reports the rows it added or updated, the state moves
 * it made, and whether the session's queue changed), take the revision and stage the events inside the same
 * transaction, commit, then publish. It also owns `pending_action`: what the
 * session waits on a person for, computed once per write from both places
 * that can hold it — the clarification rows in the store, and the user-input
 * registry's memory-owned consent/action requests (an injected port; with
 * several servers it also reads the requests other replicas keep in the
 * store, inside the write's own transaction). A write that moves no state
 * learns the clarification half from its revision bump, in the same statement.
 *
 * A deletion goes through here too (`deleteSessions`): its rows' last events
 * are staged, logged and published the same way.
 *
 * Invariants:
 * - Events go out only after the commit; a change that throws rolls the
 *   transaction back and publishes nothing.
 * - One revision per write that reports anything: a state move already took
 *   one (`transitionSession` bumps it), so no second bump goes on top; a write
 *   that reports nothing takes no revision and publishes nothing.
 * - Precedence: a clarification first, then the registry's request. Both are
 *   open at once only when an agent runs tool calls side by side; the
 *   clarification is the durable one (it outlives a restart, the inbox lists
 *   it), so the session shows as waiting on it until it is answered.
 * - A write that adds a pending clarification row leaves the session waiting
 *   on it, and needs no read to say so: the ask is the only writer of such
 *   rows, and writes them into the current turn of a session that has not
 *   ended. Unless the same write ends the session, the row is active.
 */
import {
  bumpRevisionReadingClarification,
  hasActiveClarification,
  isPendingClarificationRow,
  TERMINAL_SESSION_STATES,
  type MessageRecord,
  type RepoContext,
  type SessionRecord,
  type Store,
} from '../store/index.js';
import type { UserInputView } from '../wire/index.js';
import { toMessageView } from './message-view.js';
import type { ClarionEvent, EventPublisher, PendingAction } from './types.js';

type RequestPending = 'consent' | 'form' | 'action' | null;

/** The registry's half of `pending_action`: its live consent, form or action request, if any. */
export type UserInputPending = (
  sessionId: string,
  tx: RepoContext,
) => RequestPending | Promise<RequestPending>;

/**
 * Keeps a write's staged events with its transaction for other replicas, and
 * wakes them (one statement; issue 16). Absent with a single server (SQLite),
 * whose writes cost what they did.
 */
export type SessionEventLog = (
  tx: RepoContext,
  sessionId: string,
  events: readonly ClarionEvent[],
) => Promise<void>;

export interface SessionWriterDeps {
  store: Store;
  events: EventPublisher;
  userInputPending: UserInputPending;
  log?: SessionEventLog;
}

/** What a change reports through while it runs inside the write. */
export interface SessionWrite {
  readonly tx: RepoContext;
  readonly sessionId: string;
  readonly added: (...rows: readonly MessageRecord[]) => void;
  readonly updated: (...rows: readonly MessageRecord[]) => void;
  /** A state move as `transitionSession` returned it; `undefined` (the guard refused) is no move. */
  readonly moved: (session: SessionRecord | undefined) => void;
  /**
   * `moved` for the move `endWaitWhenNoneOpen` returned: its statement found
   * no question of the current turn open, so `pending_action` is computed
   * without probing for one again (the respond path's hand-off).
   */
  readonly waitEnded: (session: SessionRecord | undefined) => void;
  /**
   * The session's queue changed (a message queued, edited, reordered,
   * removed or taken by the driver; a follow-up came or went): `queue.changed`.
   */
  readonly queueChanged: () => void;
  /**
   * A registry's request ended without its registry (a restart, or its
   * replica died): `user_input.settled` with `view`, so open tabs drop it.
   * Carries the request's own revision, as every `user_input.*` event does.
   */
  readonly requestEnded: (view: UserInputView) => void;
}

export interface WriteOptions {
  /**
   * Bounds the wait for the write lock and every statement of the
   * transaction, the session lock included (the resolver's pre-claim budget,
   * whose remainder shrinks while the transaction waits to begin).
   */
  remainingMs?: () => number;
  /** Ends the wait for the write lock early (the budget's own timer). */
  signal?: AbortSignal;
  /**
   * Told, when the write fails after its change staged events, how to
   * publish them: for a caller that then learns its commit went through
   * after all (its reply was lost) and calls `publish` once it knows.
   */
  unconfirmed?: (publish: () => void) => void;
  /**
   * Asked once the write committed, before its events go out: `false` keeps
   * them back, for a caller that gave up on the write before it ended (and
   * so undoes what it kept with a write of its own, which watchers hear of).
   */
  publishes?: () => boolean;
}

/** What a deletion removed: its sessions as they were, their workspace, and whether their task went. */
export interface SessionsDeleted {
  readonly sessions: readonly SessionRecord[];
  readonly workspaceId: string;
  readonly withTask: boolean;
}

export interface SessionWriter {
  /** Runs `change` as one session write and returns what it returned, after publishing. */
  write<T>(
    sessionId: string,
    change: (write: SessionWrite) => Promise<T>,
    options?: WriteOptions,
  ): Promise<T>;
  /**
   * `pending_action` as a write would compute it, read now (for events no write
   * carries, and the session list). `activeClarification`, when the caller has
   * just read it (`listSessionsReadingClarification`), spares the clarification read.
   */
  pendingAction(sessionId: string, activeClarification?: boolean): Promise<PendingAction>;
  /**
   * Runs `change`, which deletes session rows (one session, or a task and its
   * sessions) in one transaction and says what went; each session's
   * subscribers then hear `session.deleted` (or `task.deleted`) at the
   * revision after its last, staged and logged like any write's events.
   * No session lock: the delete waits for a write holding the session's row,
   * and a write after it finds no session and stages nothing.
   */
  deleteSessions(
    change: (tx: RepoContext) => Promise<SessionsDeleted | undefined>,
  ): Promise<SessionsDeleted | undefined>;
}

const TERMINAL: ReadonlySet<string> = new Set(TERMINAL_SESSION_STATES);

interface Changes {
  added: MessageRecord[];
  updated: MessageRecord[];
  moved?: SessionRecord;
  /** `moved` came from `waitEnded`: no question of the current turn was open. */
  noneOpen?: boolean;
  queue: boolean;
  ended: UserInputView[];
}

export function createSessionWriter(deps: SessionWriterDeps): SessionWriter {
  /** The precedence: a clarification first, then the registry's request. */
  async function pendingAction(
    ctx: RepoContext,
    sessionId: string,
    activeClarification?: boolean,
  ): Promise<PendingAction> {
    if (activeClarification ?? (await hasActiveClarification(ctx, sessionId))) {
      return 'clarification';
    }
    return await deps.userInputPending(sessionId, ctx);
  }

  /**
   * `pending_action` after a write, without a read when the write itself
   * asked, or when its revision bump already probed the clarification.
   */
  async function staged(
    tx: RepoContext,
    sessionId: string,
    changes: Changes,
    activeClarification: boolean | undefined,
  ): Promise<PendingAction> {
    const ended = changes.moved !== undefined && TERMINAL.has(changes.moved.state);
    if (!ended && changes.added.some(isPendingClarificationRow)) return 'clarification';
    const noneOpen = changes.noneOpen === true && !changes.updated.some(isPendingClarificationRow);
    return pendingAction(tx, sessionId, noneOpen ? false : activeClarification);
  }

  async function stage(
    tx: RepoContext,
    sessionId: string,
    changes: Changes,
  ): Promise<ClarionEvent[]> {
    const { added, updated, moved, queue, ended } = changes;
    const nothing = added.length === 0 && updated.length === 0 && ended.length === 0;
    if (nothing && moved === undefined && !queue) return [];
    const revised = moved ? undefined : await bumpRevisionReadingClarification(tx, sessionId);
    const session = moved ?? revised?.session;
    if (!session) return [];
    const scope = {
      session_id: session.id,
      task_id: session.task_id,
      revision: session.revision,
      pending_action: await staged(tx, sessionId, changes, revised?.activeClarification),
    };
    return [
      ...added.map((message): ClarionEvent => ({
        ...scope,
        type: 'message.added',
        message: toMessageView(message),
      })),
      ...updated.map((message): ClarionEvent => ({
        ...scope,
        type: 'message.updated',
        message: toMessageView(message),
      })),
      ...(moved === undefined
        ? []
        : [{ ...scope, type: 'session.state_changed' as const, state: moved.state }]),
      ...(queue ? [{ ...scope, type: 'queue.changed' as const }] : []),
      ...ended.map((request): ClarionEvent => ({
        ...scope,
        revision: request.revision,
        type: 'user_input.settled',
        request,
      })),
    ];
  }

  return {
    async write(sessionId, change, options = {}) {
      const { unconfirmed, publishes, ...bounds } = options;
      // The session's lock comes with the transaction's begin (one round trip on PostgreSQL).
      const locked = { ...bounds, lockSession: sessionId };
      let staged: ClarionEvent[] = [];
      const written = deps.store.transaction(async (tx) => {
        const changes: Changes = { added: [], updated: [], queue: false, ended: [] };
        const move = (session: SessionRecord | undefined, noneOpen: boolean) => {
          if (session === undefined) return;
          if (session.id !== sessionId) {
            throw new Error(`a write to session ${sessionId} moved session ${session.id}`);
          }
          changes.moved = session;
          changes.noneOpen = noneOpen;
        };
        const result = await change({
          tx,
          sessionId,
          added: (...rows) => {
            changes.added.push(...rows);
          },
          updated: (...rows) => {
            changes.updated.push(...rows);
          },
          moved: (session) => {
            move(session, false);
          },
          waitEnded: (session) => {
            move(session, true);
          },
          queueChanged: () => {
            changes.queue = true;
          },
          requestEnded: (view) => {
            changes.ended.push(view);
          },
        });
        const events = await stage(tx, sessionId, changes);
        if (events.length > 0 && deps.log) await deps.log(tx, sessionId, events);
        staged = events;
        return { result, events };
      }, locked);
      const { result, events } = await written.catch((error: unknown) => {
        if (unconfirmed && staged.length > 0) {
          const events = staged;
          unconfirmed(() => {
            for (const event of events) deps.events.publish(event);
          });
        }
        throw error;
      });
      if (publishes?.() === false) return result;
      for (const event of events) deps.events.publish(event);
      return result;
    },
    pendingAction: (sessionId, activeClarification) =>
      pendingAction(deps.store, sessionId, activeClarification),
    async deleteSessions(change) {
      const { deleted, events } = await deps.store.transaction(async (tx) => {
        const deleted = await change(tx);
        const events = deleted ? deletionEvents(deleted) : [];
        if (deps.log) {
          for (const event of events) await deps.log(tx, event.session_id, [event]);
        }
        return { deleted, events };
      });
      for (const event of events) deps.events.publish(event);
      return deleted;
    },
  };
}

/** A deleted session's last event: nothing waits on a person in a session that is gone. */
function deletionEvents(deleted: SessionsDeleted): ClarionEvent[] {
  return deleted.sessions.map((session) => ({
    type: deleted.withTask ? 'task.deleted' : 'session.deleted',
    session_id: session.id,
    task_id: session.task_id,
    workspace_id: deleted.workspaceId,
    revision: session.revision + 1,
    pending_action: null,
  }));
}
