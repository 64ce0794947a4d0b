/**
 * The HTTP surface as data: every route Clarion serves, with its body, its
 * replies and the outcome codes it can fail with. The OpenAPI document is
 * generated from this table (`http/openapi.ts`), and a test fails when the
 * server registers a route the table lacks, so the two cannot drift.
 */
import { z } from 'zod';
import { MAX_MCP_BODY_BYTES } from './limits.js';
import {
  meReply,
  memberListReply,
  memberReply,
  newMemberBody,
  newUserBody,
  newUserReply,
  newTokenBody,
  newTokenReply,
  newWorkspaceBody,
  renameWorkspaceBody,
  workspaceListQuery,
  signInBody,
  signInLinkBody,
  signInLinkReply,
  signInReply,
  signOutOthersReply,
  tokenListReply,
  userListReply,
  workspaceListReply,
  workspaceReply,
} from './accounts.js';
import {
  bundleView,
  cancelReply,
  pendingListReply,
  respondBody,
  respondReply,
} from './clarification.js';
import { decisionListQuery, decisionListReply } from './decisions.js';
import {
  pendingListQuery,
  taskListQuery,
  transcriptPageQuery,
  unpagedListQuery,
} from './list-queries.js';
import type { OutcomeCode } from './outcomes.js';
import {
  agentProfileListReply,
  cancellingReply,
  createTaskBody,
  createTaskReply,
  deletedReply,
  messageBody,
  messageQueuedReply,
  messageSentReply,
  queueClearedReply,
  queueEditBody,
  queueItemReply,
  queueOrderBody,
  queueRemovedReply,
  queueReply,
  sessionListReply,
  sessionReply,
  taskListReply,
  transcriptPageReply,
  userQueueReply,
} from './sessions.js';
import {
  channelListReply,
  channelTestReply,
  newChannelBody,
  newChannelReply,
  notificationSettingsBody,
  notificationSettingsReply,
  webPushRenewalBody,
  webPushRenewalReply,
} from './notifications.js';
import { userInputListReply, userInputReply, userInputRespondBody } from './user-input.js';
import { answerLinkBody, answerLinkReply } from './answer-links.js';
import { consentRuleListReply } from './consent-rules.js';
import { healthReply } from './health.js';
import {
  ANSWER_LINK_USE_PATH,
  ANSWER_LINK_VIEW_PATH,
  SIGN_IN_PAGE_PATH,
  SIGN_IN_REDEEM_PATH,
  WEB_PUSH_RENEWAL_PATH,
} from './constants.js';

export type HttpMethod = 'get' | 'head' | 'post' | 'put' | 'patch' | 'delete';

export interface RouteSpec {
  readonly method: HttpMethod;
  /** OpenAPI form: `{name}` for a path parameter. */
  readonly path: string;
  readonly summary: string;
  /** Who may call: a signed-in person or token, or anyone. */
  readonly access: 'principal' | 'public';
  readonly body?: z.ZodType;
  /** The body may be left out, meaning what `{}` means. */
  readonly bodyOptional?: true;
  readonly query?: z.ZodObject;
  /** Success replies by status; `null` is a reply without a JSON body. */
  readonly replies: Readonly<Record<number, z.ZodType | null>>;
  /**
   * Failures beyond the ones every `/api/v1` route can give (400, 401, 403,
   * 413, 415, 500, 503: `API_FAILURES` in `http/openapi.ts`).
   */
  readonly errors: readonly OutcomeCode[];
  /**
   * Failures answered in a protocol's own envelope rather than the catalogue's
   * body: `/mcp`'s JSON-RPC errors (`jsonRpcErrorReply`), by status.
   */
  readonly protocolErrors?: Readonly<Record<number, string>>;
  /** Media type of a non-JSON 200 reply. */
  readonly produces?: string;
}

/** This document, as `GET /api/v1/openapi.json` serves it; OpenAPI's own schema describes the rest. */
const openApiDocument = z
  .looseObject({ openapi: z.string(), info: z.looseObject({}), paths: z.looseObject({}) })
  .meta({ id: 'OpenApiDocument', description: 'An OpenAPI 3.1 document' });

/** `/debug/vars`: each metric's name to its value or series, and `process`; expvar-like. */
const debugVarsReply = z
  .record(z.string(), z.unknown())
  .meta({ id: 'DebugVars', description: 'Each metric by name, and process figures' });

export const ROUTES: readonly RouteSpec[] = [
  // ---------------------------------------------------------------- clarification
  {
    method: 'post',
    path: '/api/v1/clarification/{pendingId}/respond',
    summary: 'Answer or skip a bundle of questions; the first responder wins',
    access: 'principal',
    body: respondBody,
    replies: { 200: respondReply },
    errors: ['invalid_request', 'not_found', 'not_active', 'temporarily_unavailable'],
  },
  {
    method: 'post',
    path: '/api/v1/clarification/{pendingId}/cancel',
    summary: 'Cancel a live bundle (operator)',
    access: 'principal',
    replies: { 200: cancelReply },
    errors: ['not_found', 'not_active'],
  },
  {
    method: 'get',
    path: '/api/v1/clarification/{pendingId}',
    summary: 'One bundle in any state, with its response',
    access: 'principal',
    replies: { 200: bundleView },
    errors: ['not_found'],
  },
  {
    method: 'get',
    path: '/api/v1/pending',
    summary: 'Every active bundle the caller can see, oldest first',
    access: 'principal',
    query: pendingListQuery,
    replies: { 200: pendingListReply },
    errors: ['invalid_request'],
  },
  // ---------------------------------------------------------------- tasks and sessions
  {
    method: 'post',
    path: '/api/v1/tasks',
    summary: 'Create a task with one session, optionally sending its first prompt',
    access: 'principal',
    body: createTaskBody,
    replies: { 201: createTaskReply },
    errors: ['invalid_request', 'forbidden', 'no_workspace', 'not_found', 'quota_exceeded'],
  },
  {
    method: 'get',
    path: '/api/v1/agent-profiles',
    summary:
      'The agent profiles tasks can use: command, args, handed-through variable names; no secrets',
    access: 'principal',
    query: unpagedListQuery,
    replies: { 200: agentProfileListReply },
    errors: [],
  },
  {
    method: 'get',
    path: '/api/v1/tasks',
    summary: 'Tasks the caller can see, oldest first, in pages',
    access: 'principal',
    query: taskListQuery,
    replies: { 200: taskListReply },
    errors: [],
  },
  {
    method: 'delete',
    path: '/api/v1/tasks/{id}',
    summary: 'Delete a task, its sessions and their agents',
    access: 'principal',
    replies: { 200: deletedReply },
    errors: ['not_found'],
  },
  {
    method: 'get',
    path: '/api/v1/tasks/{id}/sessions',
    summary: 'The sessions of a task',
    access: 'principal',
    query: unpagedListQuery,
    replies: { 200: sessionListReply },
    errors: ['not_found'],
  },
  {
    method: 'get',
    path: '/api/v1/decisions',
    summary:
      'Every decision a person made that the caller can see, who made it and where, newest first; filtered by task, kind, person and time',
    access: 'principal',
    query: decisionListQuery,
    replies: { 200: decisionListReply },
    errors: ['invalid_request'],
  },
  {
    method: 'get',
    path: '/api/v1/sessions/{id}/messages',
    summary:
      'One page of a session’s transcript, oldest first; with `order=newest_first` its newest page first and `next_cursor` pages back',
    access: 'principal',
    query: transcriptPageQuery,
    replies: { 200: transcriptPageReply },
    errors: ['invalid_request', 'not_found'],
  },
  {
    method: 'post',
    path: '/api/v1/sessions/{id}/messages',
    summary: 'Send a message: sent now (200) or queued while the agent is busy (202)',
    access: 'principal',
    body: messageBody,
    replies: { 200: messageSentReply, 202: messageQueuedReply },
    errors: [
      'invalid_request',
      'not_found',
      'session_refused',
      'session_failed',
      'agent_unavailable',
      'session_busy',
      'quota_exceeded',
    ],
  },
  {
    method: 'post',
    path: '/api/v1/sessions/{id}/restart',
    summary:
      'Start a failed session’s agent again: the session is `starting` while its start goes on; 409 session_failed says why when it fails again at once',
    access: 'principal',
    replies: { 200: sessionReply },
    errors: [
      'not_found',
      'conflict',
      'owner_deleted',
      'owner_removed',
      'session_failed',
      'quota_exceeded',
    ],
  },
  {
    method: 'post',
    path: '/api/v1/sessions/{id}/cancel',
    summary: 'Cancel the agent’s current turn',
    access: 'principal',
    replies: { 202: cancellingReply },
    errors: ['not_found'],
  },
  {
    method: 'delete',
    path: '/api/v1/sessions/{id}',
    summary: 'Delete a session and stop its agent',
    access: 'principal',
    replies: { 200: deletedReply },
    errors: ['not_found'],
  },
  {
    method: 'get',
    path: '/api/v1/sessions/{id}/queue',
    summary: 'The session queue: people’s messages, then due follow-ups',
    access: 'principal',
    query: unpagedListQuery,
    replies: { 200: queueReply },
    errors: ['not_found'],
  },
  {
    method: 'delete',
    path: '/api/v1/sessions/{id}/queue',
    summary: 'Clear the session queue',
    access: 'principal',
    replies: { 200: queueClearedReply },
    errors: ['not_found', 'conflict'],
  },
  {
    method: 'put',
    path: '/api/v1/sessions/{id}/queue/order',
    summary: 'Reorder the queued messages (every ID exactly once)',
    access: 'principal',
    body: queueOrderBody,
    replies: { 200: userQueueReply },
    errors: ['invalid_request', 'not_found'],
  },
  {
    method: 'patch',
    path: '/api/v1/sessions/{id}/queue/{itemId}',
    summary: 'Edit a queued message, unless it changed since the text the edit was made from',
    access: 'principal',
    body: queueEditBody,
    replies: { 200: queueItemReply },
    errors: ['invalid_request', 'not_found', 'queue_item_changed'],
  },
  {
    method: 'delete',
    path: '/api/v1/sessions/{id}/queue/{itemId}',
    summary: 'Remove a queued message or a due follow-up',
    access: 'principal',
    replies: { 200: queueRemovedReply },
    errors: ['not_found', 'conflict'],
  },
  // ---------------------------------------------------------------- user-input requests
  {
    method: 'get',
    path: '/api/v1/user-inputs',
    summary: 'Live consent, action and form requests the caller can see',
    access: 'principal',
    query: unpagedListQuery,
    replies: { 200: userInputListReply },
    errors: [],
  },
  {
    method: 'post',
    path: '/api/v1/user-inputs/{id}/respond',
    summary: 'Answer a consent (option_id), an action or a form (decision)',
    access: 'principal',
    body: userInputRespondBody,
    replies: { 200: userInputReply },
    errors: [
      'invalid_request',
      'invalid_text',
      'invalid_form_content',
      'not_found',
      'already_settled',
      'agent_exited',
      'temporarily_unavailable',
    ],
  },
  {
    method: 'get',
    path: '/api/v1/consent-rules',
    summary: 'The caller’s "Always allow" rules (an admin’s: everyone’s), newest first',
    access: 'principal',
    query: unpagedListQuery,
    replies: { 200: consentRuleListReply },
    errors: ['forbidden'],
  },
  {
    method: 'delete',
    path: '/api/v1/consent-rules/{id}',
    summary: 'Revoke an "Always allow" rule: the next such consent asks a person again',
    access: 'principal',
    replies: { 204: null },
    errors: ['forbidden', 'not_found'],
  },
  // ---------------------------------------------------------------- accounts
  {
    method: 'get',
    path: '/api/v1/me',
    summary: 'Who the caller is',
    access: 'principal',
    replies: { 200: meReply },
    errors: [],
  },
  {
    method: 'post',
    path: '/api/v1/users',
    summary: 'Create a user, its first token and a one-time sign-in link (admin)',
    access: 'principal',
    body: newUserBody,
    replies: { 201: newUserReply },
    errors: ['invalid_request', 'forbidden'],
  },
  {
    method: 'get',
    path: '/api/v1/users',
    summary: 'Every user (admin)',
    access: 'principal',
    query: unpagedListQuery,
    replies: { 200: userListReply },
    errors: ['forbidden'],
  },
  {
    method: 'delete',
    path: '/api/v1/users/{id}',
    summary:
      'Delete a user and revoke every token it holds (admin; not yourself, nor a workspace’s last owner)',
    access: 'principal',
    replies: { 204: null },
    errors: ['forbidden', 'not_found', 'conflict'],
  },
  // ---------------------------------------------------------------- notifications (a person's own)
  {
    method: 'get',
    path: '/api/v1/notification-channels',
    summary: 'Your notification channels, with each one’s last delivery',
    access: 'principal',
    query: unpagedListQuery,
    replies: { 200: channelListReply },
    errors: ['forbidden'],
  },
  {
    method: 'post',
    path: '/api/v1/notification-channels',
    summary: 'Add a notification channel (a webhook’s generated secret is returned once)',
    access: 'principal',
    body: newChannelBody,
    replies: { 201: newChannelReply },
    errors: [
      'invalid_request',
      'invalid_text',
      'internal_target',
      'forbidden',
      'conflict',
      'channel_exists',
    ],
  },
  {
    method: 'delete',
    path: '/api/v1/notification-channels/{id}',
    summary: 'Remove one of your notification channels and its owed notices',
    access: 'principal',
    replies: { 204: null },
    errors: ['forbidden', 'not_found'],
  },
  {
    method: 'post',
    path: WEB_PUSH_RENEWAL_PATH,
    summary:
      'Move your Web Push channel made from a subscription the browser replaced to its new subscription',
    access: 'principal',
    body: webPushRenewalBody,
    replies: { 200: webPushRenewalReply },
    errors: ['invalid_request', 'invalid_text', 'internal_target', 'forbidden', 'not_found'],
  },
  {
    method: 'post',
    path: '/api/v1/notification-channels/{id}/test',
    summary: 'Send a test notice now: one bounded attempt, not retried',
    access: 'principal',
    replies: { 200: channelTestReply },
    errors: ['forbidden', 'not_found'],
  },
  {
    method: 'get',
    path: '/api/v1/notification-settings',
    summary: 'Your reminder delay and privacy setting, and the server’s Web Push key',
    access: 'principal',
    replies: { 200: notificationSettingsReply },
    errors: ['forbidden'],
  },
  {
    method: 'put',
    path: '/api/v1/notification-settings',
    summary: 'Change your reminder delay or whether notices include the question',
    access: 'principal',
    body: notificationSettingsBody,
    replies: { 200: notificationSettingsReply },
    errors: ['invalid_request', 'invalid_text', 'forbidden'],
  },
  {
    method: 'post',
    path: '/api/v1/workspaces',
    summary: 'Create a workspace owned by the caller (admin)',
    access: 'principal',
    body: newWorkspaceBody,
    replies: { 201: workspaceReply },
    errors: ['invalid_request', 'forbidden'],
  },
  {
    method: 'get',
    path: '/api/v1/workspaces',
    summary: 'Workspaces the caller belongs to; with scope=all, every workspace (admin)',
    access: 'principal',
    query: workspaceListQuery,
    replies: { 200: workspaceListReply },
    errors: ['invalid_request', 'forbidden'],
  },
  {
    method: 'patch',
    path: '/api/v1/workspaces/{id}',
    summary: 'Rename a workspace (admin, or an owner of it)',
    access: 'principal',
    body: renameWorkspaceBody,
    replies: { 200: workspaceReply },
    errors: ['invalid_request', 'forbidden', 'not_found'],
  },
  {
    method: 'post',
    path: '/api/v1/workspaces/{id}/members',
    summary: 'Add a member, or change its role (admin); a workspace keeps an owner',
    access: 'principal',
    body: newMemberBody,
    replies: { 200: memberReply, 201: memberReply },
    errors: ['invalid_request', 'forbidden', 'not_found', 'conflict'],
  },
  {
    method: 'get',
    path: '/api/v1/workspaces/{id}/members',
    summary: 'The members of a workspace',
    access: 'principal',
    query: unpagedListQuery,
    replies: { 200: memberListReply },
    errors: ['forbidden', 'not_found'],
  },
  {
    method: 'delete',
    path: '/api/v1/workspaces/{id}/members/{userId}',
    summary: 'Remove a member (admin); not a workspace’s last owner',
    access: 'principal',
    replies: { 204: null },
    errors: ['forbidden', 'not_found', 'conflict'],
  },
  // ---------------------------------------------------------------- sign-in and events
  {
    method: 'get',
    path: '/auth/sign-in',
    summary:
      `Open a one-time sign-in link; spends nothing: a live link is handed to the web app's ` +
      `${SIGN_IN_PAGE_PATH}#<token> page, which redeems it with POST ${SIGN_IN_REDEEM_PATH}; ` +
      'an unknown, used or expired link opens the page saying how to get a new one',
    access: 'public',
    query: z.object({ token: z.string().describe('The one-time secret from the link') }),
    replies: { 303: null },
    errors: ['storage_unavailable'],
  },
  {
    method: 'head',
    path: '/auth/sign-in',
    summary:
      'What a link checker or mail scanner sends first: 200 for any token, spending no link ' +
      'and saying nothing of it',
    access: 'public',
    query: z.object({ token: z.string().describe('The one-time secret from the link') }),
    replies: { 200: null },
    errors: [],
  },
  {
    method: 'post',
    path: SIGN_IN_REDEEM_PATH,
    summary:
      'Redeem a sign-in link from the web app (same origin only): sets the session cookie. ' +
      'A browser signed in as another person is refused (409 signed_in_as_other, both named) ' +
      'and the link stays unspent, unless switch_account says the person chose to switch',
    access: 'public',
    body: signInBody,
    replies: { 200: signInReply },
    errors: ['invalid_request', 'forbidden', 'link_invalid', 'signed_in_as_other'],
  },
  {
    method: 'post',
    path: '/api/v1/auth/sign-in-links',
    summary:
      'A new one-time sign-in link for the caller (an empty body), or for user_id (admin); ' +
      'other links stay valid',
    access: 'principal',
    body: signInLinkBody,
    bodyOptional: true,
    replies: { 201: signInLinkReply },
    errors: ['invalid_request', 'forbidden', 'not_found', 'quota_exceeded'],
  },
  // ---------------------------------------------------------------- personal API tokens
  {
    method: 'post',
    path: '/api/v1/tokens',
    summary: 'Create a personal API token; its secret is in this reply only',
    access: 'principal',
    body: newTokenBody,
    replies: { 201: newTokenReply },
    errors: ['invalid_request', 'forbidden', 'conflict'],
  },
  {
    method: 'get',
    path: '/api/v1/tokens',
    summary: 'The caller’s personal API tokens (never their secrets)',
    access: 'principal',
    query: unpagedListQuery,
    replies: { 200: tokenListReply },
    errors: ['forbidden'],
  },
  {
    method: 'delete',
    path: '/api/v1/tokens/{id}',
    summary: 'Revoke one of the caller’s personal API tokens at once',
    access: 'principal',
    replies: { 204: null },
    errors: ['forbidden', 'not_found'],
  },
  {
    method: 'post',
    path: '/api/v1/auth/sign-out',
    summary:
      'End the browser session (the clarion_session cookie). A bearer token is refused: ' +
      'it is revoked with DELETE /api/v1/tokens/{id}',
    access: 'principal',
    replies: { 204: null },
    errors: ['not_a_browser_session'],
  },
  {
    method: 'post',
    path: '/api/v1/auth/sign-out-others',
    summary:
      'End every other browser session of the caller (a lost phone, a shared computer), ' +
      'keeping this one; their events sockets close. A bearer token is refused as by sign-out',
    access: 'principal',
    replies: { 200: signOutOthersReply },
    errors: ['not_a_browser_session'],
  },
  {
    method: 'get',
    path: '/api/v1/events',
    summary:
      'WebSocket of session events (frames: the ClientFrame and ServerFrame schemas; ' +
      'ServerFrame carries each event as EventOutput). ' +
      'Closes with 1008 when its credential ends, 4403 when its person is left in no workspace',
    access: 'principal',
    replies: { 101: null },
    errors: [],
  },
  {
    method: 'get',
    path: '/api/v1/openapi.json',
    summary: 'This document',
    access: 'public',
    replies: { 200: openApiDocument },
    errors: [],
  },
  // ---------------------------------------------------------------- answer links
  {
    method: 'post',
    path: ANSWER_LINK_VIEW_PATH,
    summary: 'What an answer link would decide, and where its item stands; changes nothing',
    access: 'public',
    body: answerLinkBody,
    replies: { 200: answerLinkReply },
    errors: ['invalid_request', 'not_found', 'person_required'],
  },
  {
    method: 'post',
    path: ANSWER_LINK_USE_PATH,
    summary:
      'Decide once through an answer link, as the person it was made for; later uses show the winner',
    access: 'public',
    body: answerLinkBody,
    replies: { 200: answerLinkReply },
    errors: [
      'invalid_request',
      'not_found',
      'person_required',
      'temporarily_unavailable',
      'storage_unavailable',
    ],
  },
  // ---------------------------------------------------------------- operations and agents
  {
    method: 'get',
    path: '/healthz',
    summary:
      'Liveness, the database driver and the schema state, and this server as a replica; 503 (with Retry-After) when the database does not answer within 2 s or the server is draining',
    access: 'public',
    replies: { 200: healthReply, 503: healthReply },
    errors: [],
  },
  {
    method: 'get',
    path: '/debug/vars',
    summary: 'Counters as JSON',
    access: 'public',
    replies: { 200: debugVarsReply },
    errors: ['unauthorized', 'forbidden', 'storage_unavailable'],
  },
  {
    method: 'get',
    path: '/metrics',
    summary: 'Counters in Prometheus text format',
    access: 'public',
    replies: { 200: null },
    produces: 'text/plain',
    errors: ['unauthorized', 'forbidden', 'storage_unavailable'],
  },
  ...mcpRoutes(),
];

/**
 * `/mcp`, the MCP Streamable HTTP transport (the SDK's, behind Clarion's
 * bearer check): a POST carries JSON-RPC messages, a GET opens a session's
 * stream of server messages, a DELETE closes a session. Only the bearer check
 * and faults answer with the catalogue's body; the transport refuses in
 * JSON-RPC errors.
 */
function mcpRoutes(): RouteSpec[] {
  const common = {
    path: '/mcp',
    access: 'principal',
    errors: ['unauthorized', 'storage_unavailable', 'internal'],
  } as const;
  const noSession = 'Not initialized yet, no Mcp-Session-Id, or an unsupported protocol version';
  const unknownSession = 'Unknown or closed MCP session: initialize a new one';
  return [
    {
      ...common,
      method: 'post',
      summary:
        'Send JSON-RPC messages to Clarion’s MCP server: an `initialize` opens a session ' +
        '(its ID in the Mcp-Session-Id header), later messages name it',
      replies: { 200: null, 202: null },
      produces: 'text/event-stream',
      protocolErrors: {
        400: `Not JSON or not JSON-RPC (data.code invalid_text: not UTF-8); ${noSession}`,
        404: unknownSession,
        406: 'Accept must name both application/json and text/event-stream',
        // From the bound the route enforces, so the document cannot state another.
        413: `The body is larger than the MCP limit (${MAX_MCP_BODY_BYTES} bytes)`,
        415: 'Content-Type must be application/json',
        429: 'Too many open MCP sessions (data.code quota_exceeded); close one or retry later',
      },
    },
    {
      ...common,
      method: 'get',
      summary: 'Open the session’s stream of server messages (Server-Sent Events)',
      replies: { 200: null },
      produces: 'text/event-stream',
      protocolErrors: {
        400: noSession,
        404: unknownSession,
        406: 'Accept must name text/event-stream',
        409: 'The session already has a stream open',
      },
    },
    {
      ...common,
      method: 'delete',
      summary: 'Close the MCP session; calls still waiting in it end',
      replies: { 200: null },
      protocolErrors: { 400: noSession, 404: unknownSession },
    },
  ];
}
