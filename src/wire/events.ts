/**
 * `/api/v1/events`: JSON text frames in both directions. Each event carries
 * the session's revision (bumped in the same transaction as the change it
 * reports), so a client keeps the highest revision it has seen per session and
 * drops anything older. Events only say what the store already holds.
 */
import { z } from 'zod';
import { pendingAction, sessionState } from './common.js';
import { USER_INPUT_EVENT_TYPES } from './constants.js';
import { MAX_SESSION_ID_CHARS, MAX_SESSIONS_PER_FRAME } from './limits.js';
import { messageView } from './sessions.js';
import { userInputView } from './user-input.js';

const sessionScoped = {
  session_id: z.string(),
  task_id: z.string(),
  revision: z.number().int(),
  pending_action: pendingAction,
};

const deletion = { ...sessionScoped, pending_action: z.null(), workspace_id: z.string() };

export type UserInputEventType = (typeof USER_INPUT_EVENT_TYPES)[number];

export const clarionEvent = z
  .discriminatedUnion('type', [
    z.object({ ...sessionScoped, type: z.literal('message.added'), message: messageView }),
    z.object({ ...sessionScoped, type: z.literal('message.updated'), message: messageView }),
    z.object({ ...sessionScoped, type: z.literal('session.state_changed'), state: sessionState }),
    /**
     * A memory-owned user-input request changed. `revision` here is the
     * request's own revision; clients keep the highest per request ID.
     */
    z.object({
      ...sessionScoped,
      type: z.enum(USER_INPUT_EVENT_TYPES),
      request: userInputView,
    }),
    /**
     * The session's queue changed (a message queued, edited, reordered,
     * removed or taken by the driver; a follow-up came or went); refetch it.
     */
    z.object({ ...sessionScoped, type: z.literal('queue.changed') }),
    /**
     * The session is gone, and nothing of it is served again: deleted on its
     * own, or with its task (`task.deleted`, one for each session the task
     * had; the task is gone too). `revision` is the one after the session's
     * last. `workspace_id` is the task's: who may hear of it. Every event is
     * a session's (its subscription, its revision, its log across replicas),
     * so a task deleted with no session left has none: clients learn it
     * from their next task list.
     */
    z.object({ ...deletion, type: z.literal('session.deleted') }),
    z.object({ ...deletion, type: z.literal('task.deleted') }),
  ])
  .meta({ id: 'Event' });
export type ClarionEvent = z.infer<typeof clarionEvent>;
export type ClarionEventType = ClarionEvent['type'];

const sessionIds = z
  .array(
    z
      .string()
      .min(1)
      .max(MAX_SESSION_ID_CHARS, `a session id has at most ${MAX_SESSION_ID_CHARS} characters`),
  )
  .max(MAX_SESSIONS_PER_FRAME, `at most ${MAX_SESSIONS_PER_FRAME} session ids per frame`);

/**
 * `sessions` names explicit sessions; `all: true` means everything the
 * principal can see. `ping` asks for a `pong`: a browser cannot see the
 * protocol's own pings, so this is how it finds a socket that died without a
 * close (a phone that changed networks), which TCP may take minutes to report.
 */
export const clientFrame = z.union([
  z.strictObject({ type: z.enum(['subscribe', 'unsubscribe']), sessions: sessionIds }),
  z.strictObject({ type: z.enum(['subscribe', 'unsubscribe']), all: z.literal(true) }),
  z.strictObject({ type: z.literal('ping') }),
]);
export type ClientFrame = z.infer<typeof clientFrame>;

export const serverFrame = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('subscribed'),
    sessions: z.array(z.string()),
    all: z.boolean(),
    refused: z.array(z.string()),
  }),
  z.object({ type: z.literal('unsubscribed'), sessions: z.array(z.string()), all: z.boolean() }),
  z.object({ type: z.literal('event'), event: clarionEvent }),
  /** The reply to a `ping`, after every frame the client sent before it. */
  z.object({ type: z.literal('pong') }),
  /**
   * The person's workspace memberships changed (sent to each of their
   * sockets, on every replica). `ended` names the explicitly subscribed
   * sessions they can no longer see: those subscriptions are over, and
   * nothing more of them comes. `all` says whether an all-subscription goes
   * on (with what they still see). Refetch lists (tasks, pending): what they
   * see may have grown or shrunk. A person left in no workspace at all gets
   * no frame; the socket closes with `EVENTS_CLOSE_NO_WORKSPACE`.
   */
  z
    .object({ type: z.literal('access_changed'), ended: z.array(z.string()), all: z.boolean() })
    .describe(
      'The person’s workspaces changed: `ended` names the explicit subscriptions that are over ' +
        '(sessions no longer visible), `all` whether an all-subscription goes on; read lists ' +
        'again. A person left in no workspace gets no frame: the socket closes with 4403.',
    ),
  /**
   * A person's "Always allow" rules changed (one kept by an answer, or
   * revoked), after its write committed: read `GET /api/v1/consent-rules`
   * again. Sent, on every replica, to the rule's person's sockets and to
   * admins' (whose list holds everyone's rules); never to anyone else.
   */
  z
    .object({ type: z.literal('consent_rules_changed') })
    .describe('The person’s "Always allow" rules changed: read the rules again.'),
  /**
   * A person's notification channels or settings changed (a channel added,
   * renewed or deleted, a preference saved), after the change committed:
   * read them again. Sent, on every replica, to that person's sockets only.
   */
  z
    .object({ type: z.literal('notifications_changed') })
    .describe('The person’s notification channels or settings changed: read them again.'),
  /**
   * A person's API tokens changed (one made or revoked), after the change
   * committed: read them again. Sent, on every replica, to that person's
   * sockets only.
   */
  z
    .object({ type: z.literal('tokens_changed') })
    .describe('The person’s API tokens changed: read them again.'),
  /**
   * Users, workspaces or memberships changed (a workspace made or renamed, a
   * person invited or deleted, a member added or removed), after the change
   * committed: a People page reads them again. Sent, on every replica, to
   * admins' sockets, and when a workspace's members changed to its members'
   * (who list them); never to anyone else.
   */
  z
    .object({ type: z.literal('people_changed') })
    .describe(
      'Users, workspaces or memberships changed (to admins; to a workspace’s members when its ' +
        'members changed): read them again.',
    ),
  z.object({
    type: z.literal('error'),
    // `invalid_text`: a string in the frame holds NUL or an unpaired surrogate.
    code: z.enum(['invalid_request', 'invalid_text']),
    error: z.string(),
  }),
]);
export type ServerFrame = z.infer<typeof serverFrame>;
