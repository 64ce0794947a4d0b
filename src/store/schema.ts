/**
 * Start-up schema: an ordered list of `CREATE … IF NOT EXISTS` steps and
 * column additions made only where the column is missing. A fresh and an
 * existing database converge by replaying the list; nothing rewrites rows and
 * there is no version flag. A failed step stops start-up (the caller must not
 * admit work), and the error names the step.
 */
import { sql, type Kysely } from 'kysely';
import type { Dialect, IndexDefinition } from './dialect.js';
import { OPEN_TURNS_INDEX, OPEN_TURNS_INDEX_DDL } from './interrupted-turns.js';
import { UNANSWERED_ASKS_INDEX, UNANSWERED_ASKS_INDEX_DDL } from './notifications.js';
import { SETTLED_ROWS_INDEX, SETTLED_ROWS_INDEX_DDL } from './outbox-retention.js';
import type { Database } from './tables.js';

/** A nullable column added to an existing table; existing rows read it as NULL. */
export interface ColumnAddition {
  readonly table: string;
  readonly column: string;
  /** The column's type, spelled so both engines read it the same way (`TEXT`). */
  readonly type: string;
}

export type SchemaStep =
  | { readonly name: string; readonly ddl: string }
  | { readonly name: string; readonly addColumn: ColumnAddition };

// Types are spelled so that SQLite and PostgreSQL read them the same way.
const TABLES: readonly SchemaStep[] = [
  {
    name: 'table users',
    ddl: `CREATE TABLE IF NOT EXISTS users (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      is_admin INTEGER NOT NULL DEFAULT 0,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    )`,
  },
  {
    name: 'table api_tokens',
    ddl: `CREATE TABLE IF NOT EXISTS api_tokens (
      id TEXT PRIMARY KEY,
      user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      kind TEXT NOT NULL,
      token_hash TEXT NOT NULL UNIQUE,
      task_session_id TEXT,
      expires_at TEXT,
      used_at TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    )`,
  },
  {
    name: 'table workspaces',
    ddl: `CREATE TABLE IF NOT EXISTS workspaces (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    )`,
  },
  {
    name: 'table workspace_members',
    ddl: `CREATE TABLE IF NOT EXISTS workspace_members (
      workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      role TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      PRIMARY KEY (workspace_id, user_id)
    )`,
  },
  {
    name: 'table tasks',
    ddl: `CREATE TABLE IF NOT EXISTS tasks (
      id TEXT PRIMARY KEY,
      workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      title TEXT NOT NULL,
      created_by TEXT REFERENCES users (id) ON DELETE SET NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    )`,
  },
  {
    name: 'table task_sessions',
    ddl: `CREATE TABLE IF NOT EXISTS task_sessions (
      id TEXT PRIMARY KEY,
      task_id TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
      agent_profile TEXT NOT NULL,
      state TEXT NOT NULL,
      agent_session_id TEXT,
      revision INTEGER NOT NULL DEFAULT 0,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    )`,
  },
  {
    name: 'table task_session_turns',
    ddl: `CREATE TABLE IF NOT EXISTS task_session_turns (
      id TEXT PRIMARY KEY,
      task_session_id TEXT NOT NULL REFERENCES task_sessions (id) ON DELETE CASCADE,
      task_id TEXT NOT NULL,
      started_at TEXT NOT NULL,
      completed_at TEXT,
      metadata TEXT NOT NULL DEFAULT '{}',
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    )`,
  },
  {
    name: 'table task_session_messages',
    ddl: `CREATE TABLE IF NOT EXISTS task_session_messages (
      id TEXT PRIMARY KEY,
      task_session_id TEXT NOT NULL REFERENCES task_sessions (id) ON DELETE CASCADE,
      task_id TEXT NOT NULL,
      turn_id TEXT NOT NULL REFERENCES task_session_turns (id) ON DELETE CASCADE,
      author_type TEXT NOT NULL,
      type TEXT NOT NULL,
      content TEXT NOT NULL,
      metadata TEXT NOT NULL DEFAULT '{}',
      requests_input INTEGER NOT NULL DEFAULT 0,
      admission_key TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    )`,
  },
  {
    // The decision log outlives a deleted session (`decisions.ts`): no keys to the gone rows.
    name: 'table decision_archive',
    ddl: `CREATE TABLE IF NOT EXISTS decision_archive (
      id TEXT PRIMARY KEY,
      task_session_id TEXT NOT NULL,
      task_id TEXT NOT NULL,
      turn_id TEXT NOT NULL,
      author_type TEXT NOT NULL,
      type TEXT NOT NULL,
      content TEXT NOT NULL,
      metadata TEXT NOT NULL DEFAULT '{}',
      requests_input INTEGER NOT NULL DEFAULT 0,
      admission_key TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      workspace_id TEXT NOT NULL,
      task_title TEXT NOT NULL,
      archived_at TEXT NOT NULL
    )`,
  },
  {
    name: 'table message_queue',
    ddl: `CREATE TABLE IF NOT EXISTS message_queue (
      id TEXT PRIMARY KEY,
      task_session_id TEXT NOT NULL REFERENCES task_sessions (id) ON DELETE CASCADE,
      task_id TEXT NOT NULL,
      content TEXT NOT NULL,
      admission_key TEXT NOT NULL,
      position INTEGER NOT NULL,
      created_by TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      UNIQUE (task_session_id, admission_key)
    )`,
  },
  {
    name: 'table answer_links',
    ddl: `CREATE TABLE IF NOT EXISTS answer_links (
      id TEXT PRIMARY KEY,
      token_hash TEXT NOT NULL UNIQUE,
      user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      task_session_id TEXT NOT NULL REFERENCES task_sessions (id) ON DELETE CASCADE,
      item_kind TEXT NOT NULL,
      item_id TEXT NOT NULL,
      choice TEXT NOT NULL,
      expires_at TEXT NOT NULL,
      used_at TEXT,
      created_at TEXT NOT NULL
    )`,
  },
  {
    name: 'table server_keys',
    ddl: `CREATE TABLE IF NOT EXISTS server_keys (
      name TEXT PRIMARY KEY,
      value TEXT NOT NULL,
      created_at TEXT NOT NULL
    )`,
  },
  // Notifications (issue 14): a person's channels, their settings, and the
  // outbox whose (channel, event, occurrence) key makes a second notice for
  // one item impossible.
  {
    name: 'table notification_channels',
    ddl: `CREATE TABLE IF NOT EXISTS notification_channels (
      id TEXT PRIMARY KEY,
      user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      kind TEXT NOT NULL,
      name TEXT NOT NULL,
      config TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    )`,
  },
  {
    name: 'table notification_settings',
    ddl: `CREATE TABLE IF NOT EXISTS notification_settings (
      user_id TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
      reminder_delay_s INTEGER NOT NULL DEFAULT 600,
      include_question INTEGER NOT NULL DEFAULT 0,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    )`,
  },
  {
    name: 'table notification_outbox',
    ddl: `CREATE TABLE IF NOT EXISTS notification_outbox (
      id TEXT PRIMARY KEY,
      channel_id TEXT NOT NULL REFERENCES notification_channels (id) ON DELETE CASCADE,
      user_id TEXT NOT NULL,
      event TEXT NOT NULL,
      occurrence TEXT NOT NULL,
      payload TEXT NOT NULL,
      attempts INTEGER NOT NULL DEFAULT 0,
      next_attempt_at TEXT NOT NULL,
      first_attempt_at TEXT,
      delivered_at TEXT,
      gave_up_at TEXT,
      last_error TEXT,
      last_status INTEGER,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      UNIQUE (channel_id, event, occurrence)
    )`,
  },
  // "Always allow" kept per person, agent profile and tool (issue 15).
  {
    name: 'table consent_rules',
    ddl: `CREATE TABLE IF NOT EXISTS consent_rules (
      id TEXT PRIMARY KEY,
      user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      agent_profile TEXT NOT NULL,
      tool_key TEXT NOT NULL,
      surface TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      UNIQUE (user_id, agent_profile, tool_key)
    )`,
  },
  // A revoked "Always allow": the rule as it was, with who revoked it, where and when. Its ID is
  // the rule's, revoked once; names are kept as text, as the decision log keeps them.
  {
    name: 'table consent_rule_revocations',
    ddl: `CREATE TABLE IF NOT EXISTS consent_rule_revocations (
      id TEXT PRIMARY KEY,
      user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      agent_profile TEXT NOT NULL,
      tool TEXT NOT NULL,
      command TEXT,
      workspace_id TEXT,
      cwd TEXT,
      surface TEXT NOT NULL,
      created_at TEXT NOT NULL,
      revoked_by TEXT NOT NULL,
      revoked_by_name TEXT NOT NULL,
      revoked_surface TEXT NOT NULL,
      revoked_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    )`,
  },
  // Several servers on one database (issue 16): who is running, and who runs which session's agent.
  {
    name: 'table replicas',
    ddl: `CREATE TABLE IF NOT EXISTS replicas (
      id TEXT PRIMARY KEY,
      lock_key INTEGER,
      started_at TEXT NOT NULL,
      heartbeat_at TEXT NOT NULL,
      stopped_at TEXT
    )`,
  },
  {
    name: 'table session_leases',
    ddl: `CREATE TABLE IF NOT EXISTS session_leases (
      session_id TEXT PRIMARY KEY REFERENCES task_sessions (id) ON DELETE CASCADE,
      replica_id TEXT NOT NULL,
      acquired_at TEXT NOT NULL,
      expires_at TEXT NOT NULL
    )`,
  },
  // The agent requests (consent, action, form) a registry waits on a person for: the registry
  // keeps them in memory, so a restart or a replica's death would otherwise leave no trace of
  // them (`open-user-inputs.ts`).
  {
    name: 'table open_user_inputs',
    ddl: `CREATE TABLE IF NOT EXISTS open_user_inputs (
      id TEXT PRIMARY KEY,
      session_id TEXT NOT NULL REFERENCES task_sessions (id) ON DELETE CASCADE,
      view TEXT NOT NULL,
      created_at TEXT NOT NULL
    )`,
  },
  {
    name: 'table mcp_sessions',
    ddl: `CREATE TABLE IF NOT EXISTS mcp_sessions (
      id TEXT PRIMARY KEY,
      owner TEXT NOT NULL,
      client_name TEXT NOT NULL,
      client_version TEXT NOT NULL,
      capabilities TEXT NOT NULL,
      created_at TEXT NOT NULL
    )`,
  },
];

/** Columns added after their table first shipped; a fresh database gets them the same way. */
const COLUMNS: readonly SchemaStep[] = [
  // A personal token's label and its approximate last use (issue 14).
  column('api_tokens', 'name', 'TEXT'),
  column('api_tokens', 'last_used_at', 'TEXT'),
  // Why a session failed, and the task's working directory for its agents (issue 13).
  column('task_sessions', 'failure_code', 'TEXT'),
  column('task_sessions', 'failure_message', 'TEXT'),
  column('task_sessions', 'failed_at', 'TEXT'),
  column('tasks', 'cwd', 'TEXT'),
  // A cancel made through a replica that does not run the agent, with who asked (issue 16).
  column('task_session_turns', 'cancel_requested_by', 'TEXT'),
  column('task_session_turns', 'cancel_requested_at', 'TEXT'),
  // Where that cancel was asked, so the turn's line keeps it as a decision's record does.
  column('task_session_turns', 'cancel_requested_surface', 'TEXT'),
  // Why a notice was given up, so one given up out of its person's sight is owed again.
  column('notification_outbox', 'gave_up_reason', 'TEXT'),
  // The lease of the send in flight, so a notice owed again waits for it and it cannot settle that.
  column('notification_outbox', 'claimed_until', 'TEXT'),
  // A waiting request's copy that a person's decision replaced, with the turn it was made in.
  column('open_user_inputs', 'decided_turn_id', 'TEXT'),
  // Where a channel sends, so one person cannot hold the same channel twice (below).
  column('notification_channels', 'target', 'TEXT'),
  // An "Always allow" names the command the person saw (tnew item 3); older rows have none.
  column('consent_rules', 'tool', 'TEXT'),
  column('consent_rules', 'command', 'TEXT'),
  // An "Always allow" holds where it was made: its task's workspace and folder (issue 15).
  column('consent_rules', 'workspace_id', 'TEXT'),
  column('consent_rules', 'cwd', 'TEXT'),
  // When an item's `answered` to a channel was written, so reconcile passes skip its asks.
  column('notification_outbox', 'answered_at', 'TEXT'),
  // A person may keep answer links out of their notices (anyone reading the channel can use one).
  column('notification_settings', 'answer_links', 'INTEGER NOT NULL DEFAULT 1'),
  // The notice (outbox row) a link was sent in, so its next attempt revokes what it sent before.
  column('answer_links', 'delivery_id', 'TEXT'),
  // Why a notice failed as a code, so the settings page says it in the person's language.
  column('notification_outbox', 'last_error_code', 'TEXT'),
  // A device's Web Push channel goes with the browser sign-in that turned it on, however that
  // ends (signed out here or elsewhere, replaced, expired and pruned, its person deleted): the
  // cascade is in the deleting statement itself, on every engine and replica.
  column(
    'notification_channels',
    'browser_session_id',
    'TEXT REFERENCES api_tokens (id) ON DELETE CASCADE',
  ),
  // A shared MCP session's last use (at most an hour old), which its pruning counts from.
  column('mcp_sessions', 'last_used_at', 'TEXT'),
];

const PLAIN_INDEXES: readonly SchemaStep[] = [
  {
    // What every replica's 2 s poll reads: nearly empty, so the poll never scans the turns.
    name: 'index idx_turns_cancel_requested',
    ddl:
      'CREATE INDEX IF NOT EXISTS idx_turns_cancel_requested ' +
      'ON task_session_turns (task_session_id) WHERE cancel_requested_at IS NOT NULL',
  },
  index('idx_api_tokens_user', 'api_tokens (user_id)'),
  // What the periodic prune of spent tokens reads (`deleteSpentTokenBatch`): only those rows.
  index('idx_api_tokens_expires', 'api_tokens (expires_at)'),
  {
    name: 'index idx_api_tokens_used',
    ddl: 'CREATE INDEX IF NOT EXISTS idx_api_tokens_used ON api_tokens (used_at) WHERE used_at IS NOT NULL',
  },
  index('idx_workspace_members_user', 'workspace_members (user_id)'),
  index('idx_tasks_workspace', 'tasks (workspace_id, created_at, id)'),
  // A person's tasks: what an external agent's every ask counts its bounds over, and what a
  // person's deletion sets to NULL (PostgreSQL does not index a foreign key by itself).
  index('idx_tasks_created_by', 'tasks (created_by)'),
  // A person's tasks of one client name, newest first: where an external agent's session is.
  index('idx_tasks_creator_title', 'tasks (created_by, title, created_at, id)'),
  index('idx_open_user_inputs_session', 'open_user_inputs (session_id)'),
  index('idx_sessions_task', 'task_sessions (task_id, created_at, id)'),
  index(
    'idx_turns_session_order',
    'task_session_turns (task_session_id, started_at, created_at, id)',
  ),
  index('idx_messages_session_created', 'task_session_messages (task_session_id, created_at, id)'),
  index('idx_messages_turn', 'task_session_messages (turn_id)'),
  {
    name: 'index idx_messages_admission_key',
    ddl:
      'CREATE UNIQUE INDEX IF NOT EXISTS idx_messages_admission_key ' +
      'ON task_session_messages (task_session_id, admission_key) WHERE admission_key IS NOT NULL',
  },
  index('idx_message_queue_session', 'message_queue (task_session_id, position)'),
  index('idx_decision_archive_workspace', 'decision_archive (workspace_id, updated_at, id)'),
  { name: `index ${OPEN_TURNS_INDEX}`, ddl: OPEN_TURNS_INDEX_DDL },
  index('idx_answer_links_user', 'answer_links (user_id)'),
  index('idx_answer_links_session', 'answer_links (task_session_id)'),
  index('idx_answer_links_expires', 'answer_links (expires_at)'),
  index('idx_answer_links_delivery', 'answer_links (delivery_id)'),
  index('idx_notification_channels_user', 'notification_channels (user_id, created_at, id)'),
  // What every deleted token's cascade reads (PostgreSQL does not index a foreign key by itself).
  index('idx_notification_channels_browser_session', 'notification_channels (browser_session_id)'),
  {
    // Two creates of one channel cannot both commit: the second would have every notice
    // sent twice. Channels made before `target` was kept have none and are not compared.
    name: 'index idx_notification_channels_target',
    ddl:
      'CREATE UNIQUE INDEX IF NOT EXISTS idx_notification_channels_target ' +
      'ON notification_channels (user_id, kind, target) WHERE target IS NOT NULL',
  },
  {
    // What the worker polls: only rows still owed, so the index stays small.
    name: 'index idx_notification_outbox_due',
    ddl:
      'CREATE INDEX IF NOT EXISTS idx_notification_outbox_due ' +
      'ON notification_outbox (channel_id, next_attempt_at) ' +
      'WHERE delivered_at IS NULL AND gave_up_at IS NULL',
  },
  index('idx_notification_outbox_channel_updated', 'notification_outbox (channel_id, updated_at)'),
  index('idx_notification_outbox_occurrence', 'notification_outbox (occurrence)'),
  { name: `index ${UNANSWERED_ASKS_INDEX}`, ddl: UNANSWERED_ASKS_INDEX_DDL },
  { name: `index ${SETTLED_ROWS_INDEX}`, ddl: SETTLED_ROWS_INDEX_DDL },
  index('idx_consent_rules_tool', 'consent_rules (agent_profile, tool_key)'),
  index('idx_consent_rule_revocations_user', 'consent_rule_revocations (user_id, revoked_at, id)'),
  index('idx_consent_rule_revocations_at', 'consent_rule_revocations (revoked_at, id)'),
  index('idx_session_leases_replica', 'session_leases (replica_id, expires_at)'),
];

// The event log that carries session events across replicas (issue 16, part B;
// `event-log.ts`). PostgreSQL only: SQLite is one server and logs nothing. `txid`
// names the row's transaction, so a reader can tell the rows its last snapshot
// saw from those committed since, however late or out of order.
const EVENT_LOG: readonly SchemaStep[] = [
  {
    name: 'table session_events',
    ddl: `CREATE TABLE IF NOT EXISTS session_events (
      id BIGSERIAL PRIMARY KEY,
      txid XID8 NOT NULL DEFAULT pg_current_xact_id(),
      session_id TEXT NOT NULL,
      revision INTEGER NOT NULL,
      origin TEXT NOT NULL,
      event TEXT NOT NULL,
      created_at TEXT NOT NULL
    )`,
  },
  index('idx_session_events_order', 'session_events (txid, id)'),
  index('idx_session_events_created', 'session_events (created_at)'),
];

// The registry's live requests as their owner replica sees them, and answers
// given on another replica waiting for the owner to apply them (issue 16;
// `user-input-mirror.ts`). PostgreSQL only: SQLite is one server, whose
// registry answers everything itself.
const USER_INPUT_MIRROR: readonly SchemaStep[] = [
  {
    name: 'table user_input_requests',
    ddl: `CREATE TABLE IF NOT EXISTS user_input_requests (
      id TEXT PRIMARY KEY,
      session_id TEXT NOT NULL,
      replica_id TEXT NOT NULL,
      status TEXT NOT NULL,
      view TEXT NOT NULL,
      created_at TEXT NOT NULL
    )`,
  },
  index('idx_user_input_requests_replica', 'user_input_requests (replica_id, status)'),
  index('idx_user_input_requests_session', 'user_input_requests (session_id)'),
  {
    name: 'table user_input_answers',
    ddl: `CREATE TABLE IF NOT EXISTS user_input_answers (
      id TEXT PRIMARY KEY,
      request_id TEXT NOT NULL,
      owner TEXT NOT NULL,
      origin TEXT NOT NULL,
      answer TEXT NOT NULL,
      responder TEXT NOT NULL,
      created_at TEXT NOT NULL,
      taken_at TEXT,
      outcome TEXT
    )`,
  },
  {
    // What an owner polls: only answers not yet applied, so the index stays small.
    name: 'index idx_user_input_answers_pending',
    ddl:
      'CREATE INDEX IF NOT EXISTS idx_user_input_answers_pending ' +
      'ON user_input_answers (owner, created_at) WHERE outcome IS NULL',
  },
];

function index(name: string, target: string): SchemaStep {
  return { name: `index ${name}`, ddl: `CREATE INDEX IF NOT EXISTS ${name} ON ${target}` };
}

function column(table: string, name: string, type: string): SchemaStep {
  return { name: `column ${table}.${name}`, addColumn: { table, column: name, type } };
}

/**
 * Runs one step. A column is added only when the catalog lacks it; if a
 * concurrent start added it between the look and the `ALTER`, the failure is
 * forgiven once the catalog shows the column.
 */
export async function runSchemaStep(
  db: Kysely<Database>,
  dialect: Dialect,
  step: SchemaStep,
): Promise<void> {
  if ('ddl' in step) {
    await sql.raw(step.ddl).execute(db);
    return;
  }
  const { table, column: name, type } = step.addColumn;
  if ((await dialect.listColumns(db, table)).includes(name)) return;
  try {
    await sql.raw(`ALTER TABLE ${table} ADD COLUMN ${name} ${type}`).execute(db);
  } catch (error) {
    if (!(await dialect.listColumns(db, table)).includes(name)) throw error;
  }
}

const indexSteps = (definitions: readonly IndexDefinition[]): SchemaStep[] =>
  definitions.map((definition) => ({ name: `index ${definition.name}`, ddl: definition.ddl }));

/** Every start-up step for a driver, in the order they must run. */
export function schemaSteps(dialect: Dialect): readonly SchemaStep[] {
  const eventLog = dialect.driver === 'postgres' ? [...EVENT_LOG, ...USER_INPUT_MIRROR] : [];
  return [
    ...TABLES,
    ...COLUMNS,
    ...PLAIN_INDEXES,
    ...indexSteps(dialect.pendingIdIndexes),
    ...indexSteps([dialect.pendingRowsIndex]),
    ...indexSteps(dialect.deliveryIntentIndexes),
    ...indexSteps(dialect.attachedAsksIndexes),
    ...eventLog,
  ];
}

export class SchemaStepError extends Error {
  readonly code = 'schema_step_failed';
  constructor(
    readonly step: string,
    cause: unknown,
  ) {
    super(
      `schema step "${step}" failed: ${cause instanceof Error ? cause.message : String(cause)}`,
      {
        cause,
      },
    );
    this.name = 'SchemaStepError';
  }
}

export interface SchemaState {
  readonly state: 'ready';
  readonly steps: number;
}

const VERIFY_STEP = 'verify pending-ID indexes';

/**
 * Runs `steps` in order; the first failure stops the run with a
 * `SchemaStepError`. Then checks the catalog: `IF NOT EXISTS` skips silently
 * when another object already holds an index's name, and the response path
 * must never run without its access path.
 */
export async function applySchema(
  db: Kysely<Database>,
  dialect: Dialect,
  steps: readonly SchemaStep[] = schemaSteps(dialect),
): Promise<SchemaState> {
  for (const step of steps) {
    try {
      await runSchemaStep(db, dialect, step);
    } catch (error) {
      throw new SchemaStepError(step.name, error);
    }
  }
  const present = new Set(await dialect.listIndexes(db, 'task_session_messages'));
  const missing = dialect.pendingIdIndexes.filter((index) => !present.has(index.name));
  if (missing.length > 0) {
    const names = missing.map((index) => index.name).join(', ');
    throw new SchemaStepError(VERIFY_STEP, new Error(`missing index ${names}`));
  }
  return { state: 'ready', steps: steps.length };
}
