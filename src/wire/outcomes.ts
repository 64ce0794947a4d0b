/**
 * The one outcome catalogue: every code a service can fail with, its HTTP
 * status, the code and message clients see, and what an MCP tool call gets.
 * `http/` and `agents/mcp/` both map through this table and nothing else, so
 * a code cannot mean one thing on REST and another to an agent.
 *
 * Services fail with `Failure` (`{ ok: false, code }`, optionally a message
 * naming the subject and issue details); anything without a code is
 * `internal`, never a client fault.
 */
import { z } from 'zod';
import { sessionChangedDetails, signedInAsOtherDetails } from './accounts.js';
import { queueItemChangedDetails, sessionFailure } from './sessions.js';

export interface OutcomeEntry {
  /** HTTP status. 499 is nginx's "client closed": nobody reads the reply. */
  readonly status: 400 | 401 | 403 | 404 | 409 | 413 | 415 | 429 | 499 | 500 | 503;
  /** The `code` field on the wire; several service codes may share one. */
  readonly wire: string;
  readonly message: string;
  /** What an agent reads instead, where its next step differs from a browser's. */
  readonly mcpMessage?: string;
  /** Seconds a client should wait before trying again, sent as `Retry-After`. */
  readonly retryAfterS?: number;
}

export const OUTCOMES = {
  invalid_request: { status: 400, wire: 'invalid_request', message: 'invalid request' },
  /** A form's answer that its schema refuses; `details` names each field (`content.<name>`). */
  invalid_form_content: {
    status: 400,
    wire: 'invalid_form_content',
    message: 'the form content does not fit its schema',
  },
  /** NUL, unpaired surrogates or bytes that are not UTF-8: text no database keeps as sent. */
  invalid_text: {
    status: 400,
    wire: 'invalid_text',
    message: 'text must be well-formed UTF-8 without NUL characters',
  },
  /**
   * A channel whose target is, or resolves to, a loopback, link-local or
   * private address, added by someone who is not an admin while the admin
   * has not listed the hosts channels may name. `details` names the field.
   */
  internal_target: {
    status: 400,
    wire: 'internal_target',
    message:
      'this server sends a person’s notifications only to public addresses; ask an admin to list the host in CLARION_NOTIFY_ALLOWED_HOSTS',
  },
  unauthorized: { status: 401, wire: 'unauthorized', message: 'authentication required' },
  forbidden: { status: 403, wire: 'forbidden', message: 'not allowed' },
  person_required: {
    status: 403,
    wire: 'person_required',
    message: 'only a person can decide this; an agent may ask and wait',
    mcpMessage:
      'only a person can answer or cancel this; wait for their decision with wait_for_answer',
  },
  no_workspace: {
    status: 403,
    wire: 'no_workspace',
    message: 'your account belongs to no workspace to ask in',
  },
  foreign_host: {
    status: 403,
    wire: 'foreign_host',
    message:
      'this server does not answer to that host name: use CLARION_PUBLIC_ORIGIN or a loopback address',
  },
  /**
   * Sign-out (this browser's, or the person's other browsers') sent with a
   * bearer token: it ends browser sessions (the cookie) and nothing else, so
   * it refuses rather than answer as if done and leave the token working. A token is revoked with `DELETE /api/v1/tokens/{id}`.
   */
  not_a_browser_session: {
    status: 400,
    wire: 'not_a_browser_session',
    message:
      'signing out ends browser sessions and this request has none; revoke a token with DELETE /api/v1/tokens/{id}',
  },
  not_found: { status: 404, wire: 'not_found', message: 'not found' },
  /** A sign-in link that is unknown, used or expired: the same answer for each, saying nothing. */
  link_invalid: {
    status: 404,
    wire: 'link_invalid',
    message: 'this sign-in link does not work (unknown, used or expired); ask for a new one',
  },
  not_active: {
    status: 409,
    wire: 'not_active',
    message: 'clarification request is no longer active',
  },
  conflict: { status: 409, wire: 'conflict', message: 'conflict' },
  /** The person already has a channel of this kind sending to this URL (or push endpoint). */
  channel_exists: {
    status: 409,
    wire: 'channel_exists',
    message:
      'you already have a channel of this kind sending there; every notice would arrive twice',
  },
  /**
   * A sign-in link for one person opened in a browser signed in as another:
   * nothing changed and the link is unspent; `details` names both
   * (`SignedInAsOther`). Sending it again with `switch_account` switches.
   */
  signed_in_as_other: {
    status: 409,
    wire: 'signed_in_as_other',
    message:
      'this browser is signed in as another person; the link was not used. Send switch_account to sign in as its person instead',
  },
  /**
   * A page's request (`SIGNED_IN_AS_HEADER`) whose cookie signs in someone
   * else since another tab signed in as them; `details.signed_in_as` names them.
   */
  session_changed: {
    status: 409,
    wire: 'session_changed',
    message:
      'this browser is signed in as someone else since this page signed in; nothing was done. Reload the page to continue as them',
  },
  /** A queued message's edit made from a text it no longer has; `details.current_text` is what it reads now. */
  queue_item_changed: {
    status: 409,
    wire: 'queue_item_changed',
    message: 'the queued message changed since this edit began; nothing was saved',
  },
  already_settled: {
    status: 409,
    wire: 'conflict',
    message: 'the request is already settled',
  },
  /**
   * The agent that asked stopped (its process exited) while the request
   * waited: nobody decided, and no answer can reach it. 409, not 410: the
   * request is still there to read, settled, as for `already_settled`.
   */
  agent_exited: {
    status: 409,
    wire: 'agent_exited',
    message: 'the agent that asked stopped; the request ended unanswered',
  },
  session_busy: { status: 409, wire: 'conflict', message: 'the session is busy' },
  /**
   * An MCP request under the JSON-RPC ID of a tool call its session still
   * runs (a client resending a call after its connection dropped): the
   * transport would send the running call's result to it, and its own to
   * nobody.
   */
  request_id_in_use: {
    status: 409,
    wire: 'conflict',
    message:
      'a call with this request ID is still running in this MCP session; send the call with a new ID',
  },
  session_refused: {
    status: 409,
    wire: 'conflict',
    message: 'the session cannot take messages',
  },
  /** The session's agent failed; `details.failure` says why, and a restart may bring it back. */
  session_failed: {
    status: 409,
    wire: 'session_failed',
    message: 'the session’s agent failed; restart the session',
  },
  /** The person the session's agent acted for was deleted: no agent may run for it again. */
  owner_deleted: {
    status: 409,
    wire: 'owner_deleted',
    message: 'the person this agent acted for was deleted, so it cannot run again',
  },
  /**
   * The person the session's agent acts for no longer belongs to the task's
   * workspace: no agent may run for it until they are added back.
   */
  owner_removed: {
    status: 409,
    wire: 'owner_removed',
    message:
      'the person this agent acts for was removed from its workspace, so it cannot run until they are added back',
  },
  /** The agent runs but did not take the message in time; nothing says it will. */
  agent_unavailable: {
    status: 503,
    wire: 'agent_unavailable',
    message: 'the agent did not take the message; try again',
  },
  payload_too_large: {
    status: 413,
    wire: 'payload_too_large',
    message: 'request body is too large',
  },
  unsupported_media_type: {
    status: 415,
    wire: 'unsupported_media_type',
    message: 'request body must be JSON',
  },
  quota_exceeded: {
    status: 429,
    wire: 'quota_exceeded',
    message: 'quota exceeded; try again later',
    // A hint, not a promise: a slot frees when a session or agent of the caller ends.
    retryAfterS: 60,
  },
  /**
   * An agent asked while it already holds as many open requests (questions,
   * or consent, action and form requests) as it may. Nothing was stored; the
   * service's message says how many are open.
   */
  too_many_open_requests: {
    status: 429,
    wire: 'too_many_open_requests',
    message: 'this agent holds as many open requests as it may; a person must answer some first',
    mcpMessage:
      'you hold as many open requests as an agent may; a person must answer or cancel some before you ask again',
    // A hint, not a promise: a slot frees only when a person answers or cancels one.
    retryAfterS: 60,
  },
  /**
   * A person's external agents asked under a new MCP client name while they
   * already have as many live external sessions (one per name) as they may.
   * No task was made; the person frees a place by deleting one of them.
   */
  too_many_external_sessions: {
    status: 429,
    wire: 'too_many_external_sessions',
    message:
      'your external agents have as many sessions as they may; delete one of their tasks first',
    mcpMessage:
      'your external agents have as many sessions (one per MCP client name) as they may; ask under ' +
      'a client name that already has one, or have the person delete one of those tasks in Clarion',
  },
  caller_gone: { status: 499, wire: 'cancelled', message: 'the call was cancelled' },
  temporarily_unavailable: {
    status: 503,
    wire: 'temporarily_unavailable',
    message: 'clarification response is temporarily unavailable',
    mcpMessage:
      'clarification response is temporarily unavailable; nothing was recorded, retry the same call',
  },
  shutting_down: { status: 503, wire: 'unavailable', message: 'the server is shutting down' },
  storage_unavailable: {
    status: 503,
    wire: 'temporarily_unavailable',
    message: 'storage is temporarily unavailable; retry shortly',
    mcpMessage: 'storage is temporarily unavailable; retry the same call shortly',
  },
  internal: { status: 500, wire: 'internal', message: 'internal error' },
} as const satisfies Record<string, OutcomeEntry>;

export type OutcomeCode = keyof typeof OUTCOMES;

export const OUTCOME_CODES = Object.keys(OUTCOMES) as OutcomeCode[];

/**
 * One problem with an input: a dotted path (empty for the whole body) and
 * what is wrong, in English; `code` names the problem where a client words
 * it itself (`TASK_FIELD_PROBLEMS`).
 */
export const issue = z
  .object({ path: z.string(), message: z.string(), code: z.string().optional() })
  .meta({ id: 'Issue' });
export type Issue = z.infer<typeof issue>;

/** A service's failure, the one shape every service returns on its `ok: false` side. */
export interface Failure<C extends OutcomeCode = OutcomeCode> {
  readonly ok: false;
  readonly code: C;
  /** Names the subject ("session not found"); the catalogue's message otherwise. */
  readonly message?: string;
  /** Input issues for `invalid_request` and `invalid_text`, or a small object saying why (`{ reason }`). */
  readonly details?: readonly Issue[] | Exclude<ErrorDetails, Issue[]>;
}

export function failure<C extends OutcomeCode>(
  code: C,
  message?: string,
  details?: Failure['details'],
): Failure<C> {
  return {
    ok: false,
    code,
    ...(message === undefined ? {} : { message }),
    ...(details === undefined ? {} : { details }),
  };
}

/** Every `code` an error body can carry: the catalogue's wire codes, each once. */
export const WIRE_CODES = [...new Set(Object.values(OUTCOMES).map((entry) => entry.wire))] as [
  string,
  ...string[],
];

/**
 * Every shape an error's `details` takes, by the code that carries it. A
 * client tells them apart by `code`; the shapes are disjoint enough to parse
 * without it.
 */
export const errorDetails = z
  .union([
    z
      .array(issue)
      .describe(
        'invalid_request, invalid_text, invalid_form_content, internal_target: each input issue',
      ),
    z
      .object({ failure: sessionFailure.nullable() })
      .meta({ id: 'SessionFailedDetails', description: 'session_failed: why the agent failed' }),
    queueItemChangedDetails.describe('queue_item_changed: what the queued message reads now'),
    signedInAsOtherDetails.describe('signed_in_as_other: both people'),
    sessionChangedDetails.describe('session_changed: whom the browser is signed in as now'),
    z
      .object({
        limit: z.int().describe('The most allowed'),
        reason: z.literal('token_limit').optional().describe('Personal tokens each'),
        scope: z.enum(['user', 'server']).optional().describe('Running agents each, or in all'),
      })
      .meta({ id: 'QuotaDetails', description: 'quota_exceeded: which limit was reached' }),
    z
      .object({
        open: z.int().describe('Requests of this agent waiting now'),
        limit: z.int().describe('The most an agent may hold open'),
      })
      .meta({
        id: 'OpenRequestsDetails',
        description: 'too_many_open_requests: how many are open, of how many allowed',
      }),
    z
      .object({
        live: z.int().describe('External sessions of this person live now'),
        limit: z.int().describe('The most a person may have live'),
      })
      .meta({
        id: 'ExternalSessionsDetails',
        description: 'too_many_external_sessions: how many are live, of how many allowed',
      }),
    z.object({ reason: z.string() }).meta({
      id: 'RefusalDetails',
      description: 'conflict (the session is busy or cannot take messages): why',
    }),
  ])
  .meta({ id: 'ErrorDetails' });
export type ErrorDetails = z.infer<typeof errorDetails>;

/** The JSON body of every REST error. */
export const errorBody = z
  .object({
    error: z.string(),
    code: z.enum(WIRE_CODES),
    details: errorDetails.optional(),
  })
  .meta({ id: 'Error' });
export type ErrorBody = z.infer<typeof errorBody>;

/** The wire body of a failure, as REST sends it. */
export function errorBodyOf(failed: Pick<Failure, 'code' | 'message' | 'details'>): ErrorBody {
  const entry: OutcomeEntry = OUTCOMES[failed.code];
  return {
    error: failed.message ?? entry.message,
    code: entry.wire,
    // Only readonly-ness differs: a body is serialised, never changed.
    ...(failed.details === undefined ? {} : { details: failed.details as ErrorDetails }),
  };
}
