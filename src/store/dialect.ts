/**
 * The one place that knows how each driver spells JSON access and expression
 * indexes (DESIGN §4). An expression index only serves a query whose
 * expression is the same, so every read, claim and index definition takes its
 * text from here and nowhere else.
 */
import { CompiledQuery, sql, type Kysely, type RawBuilder } from 'kysely';
import pg from 'pg';
import { PG_SESSION_LOCK_TIMEOUT_MS } from './pg-connection.js';
import type { Database } from './tables.js';

export type Driver = 'sqlite' | 'postgres';

/** Metadata keys that SQL reads or filters on. */
export type MetadataKey =
  | 'pending_id'
  | 'status'
  | 'question_id'
  | 'agent_disconnected'
  | 'response_delivery_pending'
  | 'prompt_dispatch_pending'
  | 'prompt_dispatch_attempted'
  | 'prompt_dispatch_clarification_pending_id'
  | 'request_fingerprint'
  | 'responded_by'
  | 'responded_at'
  | 'kind'
  | 'asked_on'
  | 'delivery_by'
  | 'user_input_request_id'
  | 'awaiting_collection';

/** Fields of an object-valued metadata key that SQL filters on (`responded_by.user_id`). */
export type MetadataField = 'user_id';

/** Keys that SQL writes; a superset of the read keys. */
export type MetadataWriteKey =
  | MetadataKey
  | 'response'
  | 'reject_reason'
  | 'expired_by'
  | 'prompt_dispatch_clarification_turn_id'
  | 'prompt_dispatch_clarification_message_ids';

/** A bound value as JSON text, for `metadataSet`. */
export function jsonValue(value: unknown): RawBuilder<string> {
  return sql<string>`${JSON.stringify(value)}`;
}

/**
 * The first key of a replica's two-key advisory lock (the second is its
 * `lock_key`); two-key locks never collide with the one-key session locks.
 */
export const REPLICA_LOCK_CLASS = 1_668_050_538;
/** The two-key advisory lock `(START_UP_LOCK_CLASS, 0)` a server holds while it runs its schema steps. */
export const START_UP_LOCK_CLASS = 1_668_050_539;

export const PENDING_ID_INDEX = 'idx_messages_metadata_pending_id';
export const PENDING_ID_LOOKUP_INDEX = 'idx_messages_metadata_pending_id_lookup';
export const PENDING_ID_ORDERED_INDEX = 'idx_messages_metadata_pending_id_lookup_ordered';
export const PENDING_ROWS_INDEX = 'idx_messages_pending_clarification_turn';
export const DELIVERY_INTENT_INDEX = 'idx_messages_delivery_intent';
export const ATTACHED_ASKS_INDEX = 'idx_messages_attached_asks';

/**
 * `CLARIFICATION_TYPE` of clarification.ts, spelled here because that module
 * imports this one. A literal, not a bound parameter: SQLite only uses a
 * partial index when the query carries its predicate as the same literal.
 */
const CLARIFICATION_ROW_TYPE = 'clarification_request';

export interface IndexDefinition {
  readonly name: string;
  readonly ddl: string;
}

export interface Dialect {
  readonly driver: Driver;
  /**
   * `metadata.pending_id` of `task_session_messages` as text, unqualified and
   * byte for byte the expression of the pending-ID indexes. Use it only where
   * `metadata` resolves to the messages table.
   */
  pendingId(): RawBuilder<string | null>;
  /** `metadata.<key>` as text (or SQL NULL), optionally qualified by a table alias. */
  metadataText(key: MetadataKey, alias?: string): RawBuilder<string | null>;
  /** `metadata.<key>.<field>` as text (or SQL NULL), optionally qualified by a table alias. */
  metadataFieldText(
    key: MetadataKey,
    field: MetadataField,
    alias?: string,
  ): RawBuilder<string | null>;
  /** Whether `metadata.<key>` holds a truthy flag (`true`, `"true"`, `"1"`, `1`); never NULL. */
  metadataFlag(key: MetadataKey, alias?: string): RawBuilder<boolean>;
  /** The three pending-ID indexes of DESIGN §4, in creation order. */
  readonly pendingIdIndexes: readonly IndexDefinition[];
  /**
   * Whether a `task_session_messages` row (optionally by alias) is a pending
   * clarification row: the claim's status guard plus type and pending ID,
   * spelled as the predicate of `pendingRowsIndex` so a query carrying it
   * may use that index. For the inbox only (see `pendingRowPredicate`).
   */
  pendingClarificationRow(alias?: string): RawBuilder<boolean>;
  /**
   * Pending clarification rows by turn: what the inbox reads per session.
   * Small, since rows leave it once answered, rejected, cancelled or expired.
   */
  readonly pendingRowsIndex: IndexDefinition;
  /**
   * Rows whose claim waits for its delivery, by claim time: nearly empty, so
   * a replica's poll for claims left undelivered reads only those. PostgreSQL
   * only (several replicas); SQLite has none.
   */
  readonly deliveryIntentIndexes: readonly IndexDefinition[];
  /**
   * Whether a `task_session_messages` row is a pending clarification row
   * still attached to a live wait on a named replica (`asked_on`), spelled as
   * the predicate of `attachedAsksIndexes` so a query carrying it may use
   * that index.
   */
  attachedAskRow(): RawBuilder<boolean>;
  /**
   * Attached asks by the replica they wait on: as many as live waits, so a
   * replica's poll for asks whose replica died reads only those. PostgreSQL
   * only (several replicas); SQLite has none.
   */
  readonly attachedAsksIndexes: readonly IndexDefinition[];
  /**
   * `metadata` with top-level keys set, as JSON text. Each value is an SQL
   * expression yielding JSON text (use `jsonValue` for a bound value), so a
   * statement can give each row its own value.
   */
  metadataSet(
    entries: readonly (readonly [MetadataWriteKey, RawBuilder<unknown>])[],
    base?: RawBuilder<string>,
  ): RawBuilder<string>;
  /** `metadata` (or `base`) without the given top-level keys, as JSON text. */
  metadataRemove(keys: readonly MetadataWriteKey[], base?: RawBuilder<string>): RawBuilder<string>;
  /**
   * Serializes writers of one session inside a transaction. PostgreSQL takes a
   * transaction-scoped advisory lock; SQLite already has a single writer.
   */
  lockSession(db: Kysely<Database>, sessionId: string): Promise<void>;
  /**
   * Runs `work` on one connection while no other server runs its own: two
   * replicas started at once on an empty database would otherwise both
   * create one table, and PostgreSQL fails the second with a duplicate key.
   * A server waits up to `waitMaxMs` for another's steps. SQLite's
   * data-directory lock already lets one server in.
   */
  exclusiveStartUp<T>(
    db: Kysely<Database>,
    waitMaxMs: number,
    work: (db: Kysely<Database>) => Promise<T>,
  ): Promise<T>;
  /**
   * Whether the replica whose `replicas.lock_key` is the column `lockKey`
   * still holds its lock. PostgreSQL frees an advisory lock the moment its
   * connection ends, so a killed replica reads dead at once; SQLite has one
   * server per data directory, so only the lease's expiry counts there (true).
   */
  replicaLockHeld(lockKey: string): RawBuilder<boolean>;
  /**
   * Keeps the planner's statistics current, so it picks the ordered pending-ID
   * index over the bare one. SQLite has no automatic statistics (`PRAGMA
   * optimize` gathers them where they are stale, cheaply); PostgreSQL's
   * autovacuum already analyzes.
   */
  refreshStatistics(db: Kysely<Database>): Promise<void>;
  /** Names of the indexes that exist on `table`, read from the catalog. */
  listIndexes(db: Kysely<Database>, table: string): Promise<string[]>;
  /** Names of the columns `table` has, read from the catalog (SQLite has no `ADD COLUMN IF NOT EXISTS`). */
  listColumns(db: Kysely<Database>, table: string): Promise<string[]>;
  /**
   * The planner's plan for `query`, one line per node, for plan tests and
   * benchmarks. Never run per request.
   */
  explain(db: Kysely<Database>, query: CompiledQuery): Promise<string[]>;
}

const METADATA = sql.raw<string>('metadata');

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

function column(alias: string | undefined, name = 'metadata'): string {
  if (alias === undefined) return name;
  if (!IDENTIFIER.test(alias)) throw new Error(`invalid table alias: ${alias}`);
  return `${alias}.${name}`;
}

function key(name: MetadataWriteKey | MetadataField): string {
  // Keys are a closed union, but they are spliced into SQL text: check anyway.
  if (!IDENTIFIER.test(name)) throw new Error(`invalid metadata key: ${name}`);
  return name;
}

function pendingIdIndexes(expression: string): IndexDefinition[] {
  return [
    {
      name: PENDING_ID_INDEX,
      ddl: `CREATE INDEX IF NOT EXISTS ${PENDING_ID_INDEX} ON task_session_messages (task_session_id, ${expression})`,
    },
    {
      name: PENDING_ID_LOOKUP_INDEX,
      ddl: `CREATE INDEX IF NOT EXISTS ${PENDING_ID_LOOKUP_INDEX} ON task_session_messages (${expression})`,
    },
    {
      name: PENDING_ID_ORDERED_INDEX,
      ddl:
        `CREATE INDEX IF NOT EXISTS ${PENDING_ID_ORDERED_INDEX} ON task_session_messages ` +
        `(${expression}, created_at, id) WHERE ${expression} IS NOT NULL`,
    },
  ];
}

/**
 * The claim's status guard, `COALESCE(status, 'pending') = 'pending'`, on
 * purpose spelled as an OR: neither planner can then prove that a claim (or
 * detach, expiry, cancel) implies this index's predicate, so those keep
 * seeking the ordered pending-ID index. PostgreSQL cannot estimate a JSON
 * predicate and takes a partial index over one as nearly empty: it was seen
 * to claim by scanning this whole index instead.
 */
function pendingRowPredicate(text: (name: MetadataKey, alias?: string) => string) {
  return (alias?: string) => {
    const status = text('status', alias);
    return (
      `${column(alias, 'type')} = '${CLARIFICATION_ROW_TYPE}' AND ` +
      `(${status} IS NULL OR ${status} = 'pending') AND ${text('pending_id', alias)} IS NOT NULL`
    );
  };
}

function pendingRowsIndex(predicate: string): IndexDefinition {
  return {
    name: PENDING_ROWS_INDEX,
    ddl: `CREATE INDEX IF NOT EXISTS ${PENDING_ROWS_INDEX} ON task_session_messages (turn_id) WHERE ${predicate}`,
  };
}

/** `pendingRowPredicate`, attached (not `agent_disconnected`), with the replica it waits on. */
function attachedAskPredicate(
  text: (name: MetadataKey) => string,
  flag: (name: MetadataKey) => string,
): string {
  return (
    `${pendingRowPredicate(text)()} AND NOT ${flag('agent_disconnected')} AND ` +
    `${text('asked_on')} IS NOT NULL`
  );
}

function sqliteText(name: MetadataKey, alias?: string): string {
  return `json_extract(${column(alias)}, '$.${key(name)}')`;
}

// json_extract turns JSON true into 1. A CASE, not `IN (1, 'true', '1')`: SQLite
// builds a temporary index for an IN list of more than two constants at every
// execution, which cost more than the rest of a short statement.
function sqliteFlag(name: MetadataKey, alias?: string): string {
  return `(CASE ${sqliteText(name, alias)} WHEN 1 THEN 1 WHEN 'true' THEN 1 WHEN '1' THEN 1 ELSE 0 END)`;
}

function sqliteFieldText(name: MetadataKey, field: MetadataField, alias?: string): string {
  return `json_extract(${column(alias)}, '$.${key(name)}.${key(field)}')`;
}

export const sqliteDialect: Dialect = {
  driver: 'sqlite',
  pendingId: () => sql.raw<string | null>(sqliteText('pending_id')),
  metadataText: (name, alias) => sql.raw<string | null>(sqliteText(name, alias)),
  metadataFieldText: (name, field, alias) =>
    sql.raw<string | null>(sqliteFieldText(name, field, alias)),
  metadataFlag: (name, alias) => sql.raw<boolean>(sqliteFlag(name, alias)),
  pendingIdIndexes: pendingIdIndexes(sqliteText('pending_id')),
  pendingClarificationRow: (alias) =>
    sql.raw<boolean>(`(${pendingRowPredicate(sqliteText)(alias)})`),
  pendingRowsIndex: pendingRowsIndex(pendingRowPredicate(sqliteText)()),
  deliveryIntentIndexes: [],
  attachedAskRow: () => sql.raw<boolean>(`(${attachedAskPredicate(sqliteText, sqliteFlag)})`),
  attachedAsksIndexes: [],
  metadataSet: (entries, base = METADATA) => {
    const pairs = entries.map(([name, value]) => sql`${sql.lit(`$.${key(name)}`)}, json(${value})`);
    return sql<string>`json_set(${base}, ${sql.join(pairs)})`;
  },
  metadataRemove: (keys, base = METADATA) =>
    sql<string>`json_remove(${base}, ${sql.join(keys.map((name) => sql.lit(`$.${key(name)}`)))})`,
  lockSession: () => Promise.resolve(),
  exclusiveStartUp: (db, _waitMaxMs, work) => work(db),
  replicaLockHeld: () => sql<boolean>`1 = 1`,
  async refreshStatistics(db) {
    await sql`PRAGMA optimize`.execute(db);
  },
  async listIndexes(db, table) {
    const result = await sql<{ name: string }>`
      SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ${table}
    `.execute(db);
    return result.rows.map((row) => row.name);
  },
  async listColumns(db, table) {
    const result = await sql<{ name: string }>`
      SELECT name FROM pragma_table_info(${table})
    `.execute(db);
    return result.rows.map((row) => row.name);
  },
  async explain(db, query) {
    const plan = await db.executeQuery<{ detail: string }>(
      CompiledQuery.raw(`EXPLAIN QUERY PLAN ${query.sql}`, [...query.parameters]),
    );
    return plan.rows.map((row) => row.detail);
  },
};

function postgresText(name: MetadataKey, alias?: string): string {
  return `(${column(alias)}::jsonb ->> '${key(name)}')`;
}

function postgresFlag(name: MetadataKey, alias?: string): string {
  return `COALESCE(${postgresText(name, alias)} IN ('true', '1'), false)`;
}

function postgresFieldText(name: MetadataKey, field: MetadataField, alias?: string): string {
  return `(${column(alias)}::jsonb -> '${key(name)}' ->> '${key(field)}')`;
}

/** The advisory lock key of a session's writers (`lockSession` and `postgresBegin` alike). */
function sessionLockKey(sessionId: string): string {
  return `task-session:${sessionId}`;
}

/** What a PostgreSQL transaction does as it begins, before any work. */
export interface PostgresBeginPlan {
  /** Bounds every statement to this many ms, so a budget that runs out cancels the work in the database. */
  readonly boundMs?: number;
  /** The session whose writers' lock to take first, as `lockSession` would. */
  readonly lockedSession?: string;
}

/**
 * `BEGIN` and what `plan` asks for, as one text without values: `pg` sends
 * that as one simple query, one round trip however many statements it holds.
 * The session ID goes in as a literal, escaped as `pg` escapes one.
 */
export function postgresBegin(plan: PostgresBeginPlan): string {
  const statements = ['BEGIN'];
  if (plan.boundMs !== undefined) {
    const bound = Math.max(1, Math.ceil(plan.boundMs));
    statements.push(`SET LOCAL statement_timeout = ${bound}`, `SET LOCAL lock_timeout = ${bound}`);
  }
  if (plan.lockedSession !== undefined) {
    const key = pg.escapeLiteral(sessionLockKey(plan.lockedSession));
    statements.push(`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))`);
  }
  return statements.join('; ');
}

export const postgresDialect: Dialect = {
  driver: 'postgres',
  pendingId: () => sql.raw<string | null>(postgresText('pending_id')),
  metadataText: (name, alias) => sql.raw<string | null>(postgresText(name, alias)),
  metadataFieldText: (name, field, alias) =>
    sql.raw<string | null>(postgresFieldText(name, field, alias)),
  metadataFlag: (name, alias) => sql.raw<boolean>(postgresFlag(name, alias)),
  pendingIdIndexes: pendingIdIndexes(postgresText('pending_id')),
  pendingClarificationRow: (alias) =>
    sql.raw<boolean>(`(${pendingRowPredicate(postgresText)(alias)})`),
  pendingRowsIndex: pendingRowsIndex(pendingRowPredicate(postgresText)()),
  deliveryIntentIndexes: [
    {
      name: DELIVERY_INTENT_INDEX,
      ddl:
        `CREATE INDEX IF NOT EXISTS ${DELIVERY_INTENT_INDEX} ON task_session_messages (updated_at) ` +
        `WHERE ${postgresFlag('response_delivery_pending')}`,
    },
  ],
  attachedAskRow: () => sql.raw<boolean>(`(${attachedAskPredicate(postgresText, postgresFlag)})`),
  attachedAsksIndexes: [
    {
      name: ATTACHED_ASKS_INDEX,
      ddl:
        `CREATE INDEX IF NOT EXISTS ${ATTACHED_ASKS_INDEX} ON task_session_messages ` +
        `(${postgresText('asked_on')}) WHERE ${attachedAskPredicate(postgresText, postgresFlag)}`,
    },
  ],
  metadataSet: (entries, base = METADATA) => {
    const pairs = entries.map(([name, value]) => sql`${sql.lit(key(name))}, (${value})::jsonb`);
    return sql<string>`((${base})::jsonb || jsonb_build_object(${sql.join(pairs)}))::text`;
  },
  metadataRemove: (keys, base = METADATA) => {
    const removals = keys.map((name) => sql` - ${sql.lit(key(name))}`);
    return sql<string>`((${base})::jsonb${sql.join(removals, sql``)})::text`;
  },
  async lockSession(db, sessionId) {
    await sql`SELECT pg_advisory_xact_lock(hashtextextended(${sessionLockKey(sessionId)}, 0))`.execute(
      db,
    );
  },
  exclusiveStartUp: (db, waitMaxMs, work) =>
    db.connection().execute(async (conn) => {
      // The connection's lock wait bound is seconds; another server's index builds may take minutes.
      await sql.raw(`SET lock_timeout = ${Math.max(1, Math.round(waitMaxMs))}`).execute(conn);
      try {
        await sql`SELECT pg_advisory_lock(${START_UP_LOCK_CLASS}::int, 0)`.execute(conn);
      } finally {
        // Not `RESET`: that is the server's default, no bound at all (`pg-connection.ts`).
        await sql.raw(`SET lock_timeout = ${PG_SESSION_LOCK_TIMEOUT_MS}`).execute(conn);
      }
      try {
        return await work(conn);
      } finally {
        // A connection that cannot say this is dropped by the reply bound, and the lock with it.
        await sql`SELECT pg_advisory_unlock(${START_UP_LOCK_CLASS}::int, 0)`
          .execute(conn)
          .catch(() => undefined);
      }
    }),
  replicaLockHeld: (lockKey) => sql<boolean>`EXISTS (
    SELECT 1 FROM pg_locks l
    WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
      AND l.classid = ${sql.raw(String(REPLICA_LOCK_CLASS))}
      AND l.objid = (${sql.ref(lockKey)})::oid
      AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
  )`,
  refreshStatistics: () => Promise.resolve(),
  async listIndexes(db, table) {
    const result = await sql<{ name: string }>`
      SELECT indexname AS name FROM pg_indexes
      WHERE schemaname = current_schema() AND tablename = ${table}
    `.execute(db);
    return result.rows.map((row) => row.name);
  },
  async listColumns(db, table) {
    const result = await sql<{ name: string }>`
      SELECT column_name AS name FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name = ${table}
    `.execute(db);
    return result.rows.map((row) => row.name);
  },
  async explain(db, query) {
    const plan = await db.executeQuery<{ 'QUERY PLAN': string }>(
      CompiledQuery.raw(`EXPLAIN ${query.sql}`, [...query.parameters]),
    );
    return plan.rows.map((row) => row['QUERY PLAN']);
  },
};

export function dialectFor(driver: Driver): Dialect {
  return driver === 'sqlite' ? sqliteDialect : postgresDialect;
}
