/**
 * The one place that knows how each driver spells JSON access and expression
 * indexes (DESIGN §4). An expression index only serves a query whose
 * expression is the same, so every read, claim and index definition takes its
 * text from here and nowhere else.
 */
import { CompiledQuery, sql, type Kysely, type RawBuilder } from 'kysely';
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
  | 'prompt_dispatch_attempted';

export const PENDING_ID_INDEX = 'idx_messages_metadata_pending_id';
export const PENDING_ID_LOOKUP_INDEX = 'idx_messages_metadata_pending_id_lookup';
export const PENDING_ID_ORDERED_INDEX = 'idx_messages_metadata_pending_id_lookup_ordered';

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
  /** Whether `metadata.<key>` holds a truthy flag (`true`, `"true"`, `"1"`, `1`); never NULL. */
  metadataFlag(key: MetadataKey, alias?: string): RawBuilder<boolean>;
  /** The three pending-ID indexes of DESIGN §4, in creation order. */
  readonly pendingIdIndexes: readonly IndexDefinition[];
  /** Names of the indexes that exist on `table`, read from the catalog. */
  listIndexes(db: Kysely<Database>, table: string): Promise<string[]>;
  /**
   * The planner's plan for `query`, one line per node, for plan tests and
   * benchmarks. Never run per request.
   */
  explain(db: Kysely<Database>, query: CompiledQuery): Promise<string[]>;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

function column(alias: string | undefined): string {
  if (alias === undefined) return 'metadata';
  if (!IDENTIFIER.test(alias)) throw new Error(`invalid table alias: ${alias}`);
  return `${alias}.metadata`;
}

function key(name: MetadataKey): string {
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

function sqliteText(name: MetadataKey, alias?: string): string {
  return `json_extract(${column(alias)}, '$.${key(name)}')`;
}

export const sqliteDialect: Dialect = {
  driver: 'sqlite',
  pendingId: () => sql.raw<string | null>(sqliteText('pending_id')),
  metadataText: (name, alias) => sql.raw<string | null>(sqliteText(name, alias)),
  // json_extract turns JSON true into 1; `IN` on NULL is NULL, hence the COALESCE.
  metadataFlag: (name, alias) =>
    sql.raw<boolean>(`COALESCE(${sqliteText(name, alias)} IN (1, 'true', '1'), 0)`),
  pendingIdIndexes: pendingIdIndexes(sqliteText('pending_id')),
  async listIndexes(db, table) {
    const result = await sql<{ name: string }>`
      SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ${table}
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

export const postgresDialect: Dialect = {
  driver: 'postgres',
  pendingId: () => sql.raw<string | null>(postgresText('pending_id')),
  metadataText: (name, alias) => sql.raw<string | null>(postgresText(name, alias)),
  metadataFlag: (name, alias) =>
    sql.raw<boolean>(`COALESCE(${postgresText(name, alias)} IN ('true', '1'), false)`),
  pendingIdIndexes: pendingIdIndexes(postgresText('pending_id')),
  async listIndexes(db, table) {
    const result = await sql<{ name: string }>`
      SELECT indexname AS name FROM pg_indexes
      WHERE schemaname = current_schema() AND tablename = ${table}
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
