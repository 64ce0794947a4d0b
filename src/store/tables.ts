/**
 * Row shapes of every table, as Kysely sees them. Both drivers store the same
 * types: text for identities, versions and JSON; integers for counters and
 * 0/1 flags. `metadata` is JSON text in both dialects (DESIGN §4).
 */
import type { DeliveryErrorCode, SessionState } from '../wire/index.js';

/** RFC 3339 UTC with nine fractional digits; see `support/clock.ts`. */
export type Timestamp = string;

export interface UsersTable {
  id: string;
  name: string;
  is_admin: number;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/**
 * `user`, `preset` and `agent` are bearer tokens, `sign_in` is the one-time
 * link, `browser` is the session cookie a redeemed link turns into. `preset`
 * is the first admin's token whose secret `CLARION_ADMIN_TOKEN` chose: its own
 * kind, so a start with another value can find the old one and revoke it.
 */
/**
 * `agent`: minted by Clarion for the agent of one session. `external_agent`:
 * minted by a person for an agent they run themselves (an MCP client), which
 * may ask and wait through `/mcp` but never decide.
 */
export type ApiTokenKind = 'user' | 'preset' | 'agent' | 'external_agent' | 'sign_in' | 'browser';

/** The kinds a person mints, lists and revokes as their own API tokens. */
export const PERSONAL_TOKEN_KINDS = [
  'user',
  'external_agent',
] as const satisfies readonly ApiTokenKind[];

export interface ApiTokensTable {
  id: string;
  user_id: string;
  kind: ApiTokenKind;
  /** SHA-256 of the secret; the secret itself is shown once and never stored. */
  token_hash: string;
  /** Agent tokens reach only this session. */
  task_session_id: string | null;
  expires_at: Timestamp | null;
  used_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  /**
   * A person's label for a `user` token; for a `sign_in` link, who minted it
   * (`SIGN_IN_ORIGINS` in `auth/sign-in-links.ts`). Null on rows older than the column.
   */
  name: string | null;
  /** When a `user` token last authenticated; updated at most once per `TOKEN_LAST_USED_INTERVAL_MS`. */
  last_used_at: Timestamp | null;
}

export interface WorkspacesTable {
  id: string;
  name: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface WorkspaceMembersTable {
  workspace_id: string;
  user_id: string;
  role: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface TasksTable {
  id: string;
  workspace_id: string;
  title: string;
  created_by: string | null;
  /** The agents' working directory for this task; Clarion's when null. */
  cwd: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export { SESSION_STATES, TERMINAL_SESSION_STATES, type SessionState } from '../wire/index.js';

export interface TaskSessionsTable {
  id: string;
  task_id: string;
  agent_profile: string;
  state: SessionState;
  /** The agent's own session identity, for `session/load` after a restart. */
  agent_session_id: string | null;
  /** Why the session's agent failed (`SessionFailureCode`); null unless it did. */
  failure_code: string | null;
  failure_message: string | null;
  failed_at: Timestamp | null;
  /** Bumped on every published change, so clients can drop stale events. */
  revision: number;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface TaskSessionTurnsTable {
  id: string;
  task_session_id: string;
  task_id: string;
  started_at: Timestamp;
  completed_at: Timestamp | null;
  metadata: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** The user who asked, through another replica, to cancel this running turn. */
  cancel_requested_by: string | null;
  /** Where they asked it (`DecisionSurface`); null on a request kept before it was recorded. */
  cancel_requested_surface: string | null;
  /** Set while that cancel waits for the replica running the agent; cleared once it acts. */
  cancel_requested_at: Timestamp | null;
}

export interface TaskSessionMessagesTable {
  id: string;
  task_session_id: string;
  task_id: string;
  turn_id: string;
  author_type: string;
  type: string;
  content: string;
  metadata: string;
  requests_input: number;
  /** Identity of one admitted message across retries; unique per session. */
  admission_key: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/**
 * A decision whose session was deleted: its transcript row as it was, with
 * what the log needs of the gone task (its workspace, which says who may read
 * it, and its title). Written by the deleting transaction; never changed.
 */
export interface DecisionArchiveTable extends TaskSessionMessagesTable {
  workspace_id: string;
  task_title: string;
  archived_at: Timestamp;
}

export interface MessageQueueTable {
  id: string;
  task_session_id: string;
  task_id: string;
  content: string;
  admission_key: string;
  position: number;
  created_by: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** One single-use answer link: only the secret's hash is kept (`auth/answer-links.ts`). */
export interface AnswerLinksTable {
  id: string;
  token_hash: string;
  user_id: string;
  /** The item's session: visibility is checked against it at every use. */
  task_session_id: string;
  item_kind: string;
  /** A bundle's pending ID or a consent or action request's ID. */
  item_id: string;
  /** JSON: the choice's label and the answer it gives. */
  choice: string;
  expires_at: Timestamp;
  used_at: Timestamp | null;
  created_at: Timestamp;
  /** The outbox row whose notice carried it; null for links minted outside a notice. */
  delivery_id: string | null;
}

/** The server's own keys (the VAPID pair), written once at first start; `server-keys.ts`. */
export interface ServerKeysTable {
  name: string;
  value: string;
  created_at: Timestamp;
}

/** A person's notification channel; `config` is JSON holding the target and its secrets. */
export interface NotificationChannelsTable {
  id: string;
  user_id: string;
  kind: string;
  name: string;
  config: string;
  /**
   * Where its notices go (the URL, or a push subscription's endpoint),
   * unique per person and kind; NULL on a channel made before it was kept.
   */
  target: string | null;
  /**
   * A Web Push channel's browser session (`api_tokens.id`), the one that
   * turned it on or last renewed it: it goes when that session does. NULL
   * for other kinds, and for one made with a bearer token or before it was kept.
   */
  browser_session_id: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface NotificationSettingsTable {
  user_id: string;
  reminder_delay_s: number;
  include_question: number;
  /** 1 (the default) or 0: whether notices to channels that show them carry answer links. */
  answer_links: number;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/**
 * Why an outbox row was given up: its item stopped waiting, its person may no
 * longer see the item (owed again if they may), or sending failed for good.
 */
export type OutboxGiveUpReason =
  'stopped_waiting' | 'not_visible' | 'reminders_off' | 'reminder_later' | 'failed';

/**
 * One notice owed to one channel. `next_attempt_at` is also the claim's
 * lease: a row being sent has it in the future, so a crash mid-send leaves a
 * row that falls due again by itself.
 */
export interface NotificationOutboxTable {
  id: string;
  channel_id: string;
  user_id: string;
  event: string;
  /** The item: a bundle's pending ID or a request's ID. */
  occurrence: string;
  /** JSON of the notice minus its delivery ID (which is this row's ID). */
  payload: string;
  attempts: number;
  next_attempt_at: Timestamp;
  first_attempt_at: Timestamp | null;
  delivered_at: Timestamp | null;
  gave_up_at: Timestamp | null;
  /** Why it was given up; `null` while owed or delivered (and on rows from before the column). */
  gave_up_reason: OutboxGiveUpReason | null;
  /**
   * The lease of the claim whose send is in flight (as `next_attempt_at` was
   * set by it), `null` once its result is recorded or the row is owed again
   * (`rearmOutboxRows`): only that claim's retry or give-up settles the row.
   */
  claimed_until: Timestamp | null;
  /**
   * When the channel's `answered` notice of the item was written, on every
   * row of the item to the channel, so the look for asks still to follow up
   * (`deliveredAsksWithoutAnswer`) reads only those. `null` until then, and
   * on rows followed up before it was kept.
   */
  answered_at: Timestamp | null;
  last_error: string | null;
  /** `last_error` as a code a page words in its language; `null` on rows from before the column. */
  last_error_code: DeliveryErrorCode | null;
  last_status: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A revoked "Always allow" (`consent-rule-revocations.ts`): the rule as it was, and its revoke. */
export interface ConsentRuleRevocationsTable {
  /** The revoked rule's ID. */
  id: string;
  /** Whose rule it was. */
  user_id: string;
  agent_profile: string;
  tool: string;
  command: string | null;
  workspace_id: string | null;
  cwd: string | null;
  /** Where the rule was set (`DecisionSurface`), and when. */
  surface: string;
  created_at: Timestamp;
  /** Who revoked it (a user ID), their name then, and where (`DecisionSurface`). */
  revoked_by: string;
  revoked_by_name: string;
  revoked_surface: string;
  revoked_at: Timestamp;
  updated_at: Timestamp;
}

/**
 * A person's standing "Always allow" for one agent profile's tool call as
 * they saw it (its kind or tool, and its whole command), where they made it
 * (the task's workspace and folder): a consent the agent asks there, in a
 * task of theirs, is allowed without asking. One row per (person, profile,
 * tool, command, workspace, folder); revoking deletes it, keeping a
 * `consent_rule_revocations` row.
 */
export interface ConsentRulesTable {
  id: string;
  user_id: string;
  agent_profile: string;
  /**
   * What a consent is matched on: a digest of `tool`, `command`, `workspace_id` and `cwd`
   * (bounded, so a long command fits the unique index, which thus includes the scope). A row
   * kept before rules named their command holds the bare tool here and NULL in `command`, one
   * kept before they were scoped a digest without the scope: neither answers anything.
   */
  tool_key: string;
  /** The tool call's kind, else its whole title, as the card names the tool. */
  tool: string | null;
  /** The tool call's whole title the person was shown (a shell call's command). */
  command: string | null;
  /** The workspace of the task the rule was made in; NULL for a rule kept before rules were scoped. */
  workspace_id: string | null;
  /** The folder that task's agent worked in; NULL for a rule kept before rules were scoped. */
  cwd: string | null;
  /** Where the person chose "Always allow" (`DecisionSurface`). */
  surface: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/**
 * A server sharing the database (issue 16). Live while it heartbeats and has
 * not stopped; on PostgreSQL also while its advisory lock (`lock_key`) is held,
 * which ends the moment its process dies.
 */
export interface ReplicasTable {
  id: string;
  lock_key: number | null;
  started_at: Timestamp;
  heartbeat_at: Timestamp;
  stopped_at: Timestamp | null;
}

/**
 * An MCP session as its `initialize` opened it, so any replica can serve its
 * next request (several replicas, issue 16). `owner` is the principal key a
 * request must match; the rest is what the server learned from `initialize`.
 */
export interface McpSessionsTable {
  id: string;
  owner: string;
  client_name: string;
  client_version: string;
  /** The client's capabilities, JSON. */
  capabilities: string;
  created_at: Timestamp;
  /** Written at most once per `MCP_SHARED_SESSION_USE_RECORD_MS`; null in rows older than it. */
  last_used_at: Timestamp | null;
}

/** Which replica runs a session's agent, until `expires_at` unless renewed. */
export interface SessionLeasesTable {
  session_id: string;
  replica_id: string;
  acquired_at: Timestamp;
  expires_at: Timestamp;
}

export interface OpenUserInputsTable {
  id: string;
  session_id: string;
  /** The request's last awaiting view, JSON; once decided, the view the decision left. */
  view: string;
  created_at: Timestamp;
  /** Set by the write that recorded a person's decision: the turn it was recorded in. */
  decided_turn_id: string | null;
}

export interface Database {
  users: UsersTable;
  api_tokens: ApiTokensTable;
  workspaces: WorkspacesTable;
  workspace_members: WorkspaceMembersTable;
  tasks: TasksTable;
  task_sessions: TaskSessionsTable;
  task_session_turns: TaskSessionTurnsTable;
  task_session_messages: TaskSessionMessagesTable;
  decision_archive: DecisionArchiveTable;
  message_queue: MessageQueueTable;
  answer_links: AnswerLinksTable;
  server_keys: ServerKeysTable;
  notification_channels: NotificationChannelsTable;
  notification_settings: NotificationSettingsTable;
  notification_outbox: NotificationOutboxTable;
  consent_rules: ConsentRulesTable;
  consent_rule_revocations: ConsentRuleRevocationsTable;
  replicas: ReplicasTable;
  session_leases: SessionLeasesTable;
  mcp_sessions: McpSessionsTable;
  open_user_inputs: OpenUserInputsTable;
}
