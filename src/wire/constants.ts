/**
 * The wire's closed vocabularies as plain constants (no zod), so the browser
 * can import them without bundling the schemas.
 */

export const SESSION_STATES = [
  'idle',
  /** Its agent is being started; admitted messages wait in the queue until it runs. */
  'starting',
  'running',
  'waiting_for_input',
  'completed',
  'failed',
  'cancelled',
] as const;

/**
 * Why a session's agent failed: it could not be started (`spawn_failed`: no
 * such program, not executable), it did not open an ACP session
 * (`start_failed`: not an ACP agent, exited while starting, an
 * `initialize` or `session/new` error, no answer in time), it exited once
 * running (`exited`), or the person it acted for was deleted, so no agent
 * may run for the session any more (`owner_deleted`), or removed from the
 * task's workspace, so none may run for it until they are added back
 * (`owner_removed`).
 */
export const SESSION_FAILURE_CODES = [
  'spawn_failed',
  'start_failed',
  'exited',
  'owner_deleted',
  'owner_removed',
] as const;
export type SessionFailureCode = (typeof SESSION_FAILURE_CODES)[number];

/**
 * The agent profile of a session whose agent Clarion did not start (it came
 * in over `/mcp`): nothing can resume it or take a message for it; a detached
 * answer is kept until the agent collects it with `wait_for_answer`.
 */
export const EXTERNAL_AGENT_PROFILE = 'external';

/** Sessions in these states take no more turns; their bundles are expired. */
export const TERMINAL_SESSION_STATES = ['completed', 'failed', 'cancelled'] as const;

/** The others: a session that may still take turns, and so may still fail. */
export const LIVE_SESSION_STATES = ['idle', 'starting', 'running', 'waiting_for_input'] as const;

export const ROW_STATUSES = ['pending', 'answered', 'rejected', 'expired', 'cancelled'] as const;

/**
 * Where a person made a decision: the web app (browser session), the REST API
 * (a user's bearer token), an MCP client holding a user's token, or a
 * one-time answer link. Agents have no surface: they never decide.
 */
export const DECISION_SURFACES = ['web', 'rest', 'mcp', 'link'] as const;
export type DecisionSurface = (typeof DECISION_SURFACES)[number];

/** The transcript type of a clarification row. */
export const CLARIFICATION_TYPE = 'clarification_request';

/**
 * The transcript type of a person's decision on a consent or action request:
 * the registry forgets requests on restart, the transcript keeps who decided.
 */
export const USER_INPUT_DECISION_TYPE = 'user_input_decision';

/**
 * What a decision row becomes when its answer was refused though its commit
 * went through (late, or with its reply lost): no longer a decision, for any
 * reader, and not shown in the web app's transcript.
 */
export const USER_INPUT_DECISION_UNKEPT_TYPE = 'user_input_decision_unkept';

/**
 * The transcript type of a note (author `system`) that an agent's consent,
 * action or form request ended unanswered because the server holding it
 * restarted or died; its metadata names the request and the cause
 * (`user-input-notes.ts`: `request_id`, `kind`, `title`, `loss`).
 */
export const USER_INPUT_ENDED_TYPE = 'user_input_ended';

export const USER_INPUT_EVENT_TYPES = [
  'user_input.requested',
  'user_input.armed',
  'user_input.settled',
] as const;

/**
 * The answer-link routes: public, the secret in the body is their credential
 * (the auth middleware lets them through without a principal); zod-free so
 * the web app's confirm page names them too.
 */
export const ANSWER_LINK_VIEW_PATH = '/api/v1/answer-links/view';
export const ANSWER_LINK_USE_PATH = '/api/v1/answer-links/use';

/**
 * Signing in with a one-time link. Its `GET /auth/sign-in?token=…` spends
 * nothing: it hands the secret to the web app's page in the fragment, which
 * never reaches a server or a Referer, and that page redeems it with a
 * same-origin POST, where the SameSite=Strict cookie shows who this browser
 * is signed in as already. Zod-free so the web app names both.
 */
export const SIGN_IN_PAGE_PATH = '/sign-in';

/**
 * The web app's page of a session, opened on one of its questions when
 * `pendingId` names it (a session may wait on several): what the app's own
 * links and a notice's link lead to.
 */
export function webSessionPath(sessionId: string, pendingId?: string): string {
  const path = `/sessions/${encodeURIComponent(sessionId)}`;
  return pendingId === undefined ? path : `${path}?pending=${encodeURIComponent(pendingId)}`;
}
export const SIGN_IN_REDEEM_PATH = '/api/v1/auth/sign-in';

/**
 * Close codes of the events socket beyond RFC 6455's own (1001 going away,
 * 1011 internal error, 1013 too slow: reconnect and refetch). 1008: its
 * credential ended (a token revoked, a browser session signed out, the
 * person deleted): sign in again. 4403: the person was removed from their
 * last workspace, so the socket can hear nothing; the credential still
 * works, and a socket opened again hears whatever a later membership lets
 * it see.
 */
export const EVENTS_CLOSE_CREDENTIAL_REVOKED = 1008;
export const EVENTS_CLOSE_NO_WORKSPACE = 4403;
/**
 * 4409: the page named a person (`SIGNED_IN_AS_PARAM`) whom the browser's
 * cookie no longer signs in, as another tab signed it in as someone else. The
 * socket closes before it hears anything; the page learns whom it signs in now.
 */
export const EVENTS_CLOSE_SESSION_CHANGED = 4409;

/**
 * The header a page of the web app sends with each request once signed in:
 * the ID of the person it signed in as. A browser's tabs share its cookie;
 * once another tab signs in as someone else, the server refuses the page's
 * requests (409 `session_changed`) instead of taking them as that person's.
 */
export const SIGNED_IN_AS_HEADER = 'x-clarion-signed-in-as';
/** The same on the events socket, whose upgrade a page cannot add a header to: a query parameter. */
export const SIGNED_IN_AS_PARAM = 'signed_in_as';

/**
 * Why a new task's `cwd` or `agent_profile` was refused, as the `code` of its
 * issue: the server's `message` is English, so a client words it from this.
 */
export const TASK_FIELD_PROBLEMS = [
  'cwd_not_absolute',
  'cwd_not_directory',
  'cwd_not_readable_in_time',
  'unknown_profile',
] as const;
export type TaskFieldProblem = (typeof TASK_FIELD_PROBLEMS)[number];

/**
 * Where a browser's service worker hands the server the subscription that
 * replaced one a channel was made from (`pushsubscriptionchange`); the page
 * does the same when it finds its subscription replaced. A path of its own,
 * not a channel's: the worker knows the old endpoint (the event's, or the
 * one the page recorded for this device when the event names none), not
 * the channel.
 */
export const WEB_PUSH_RENEWAL_PATH = '/api/v1/notification-channels/web-push/renewal';
