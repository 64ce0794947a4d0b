import { sql, type Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ATTACHED_ASKS_INDEX,
  DELIVERY_INTENT_INDEX,
  PENDING_ID_INDEX,
  PENDING_ID_LOOKUP_INDEX,
  PENDING_ID_ORDERED_INDEX,
  SchemaStepError,
  connectDatabase,
  dialectFor,
  openStore,
  runSchemaStep,
  schemaSteps,
  type Database,
  type Dialect,
  type Driver,
  type Store,
  localWakeChannel,
} from '../../src/store/index.js';
import { systemClock } from '../../src/support/clock.js';
import { uuidSource } from '../../src/support/ids.js';
import { DRIVERS, freshDatabase, type TestDatabase } from '../support/databases.js';
import { insertUnrelatedMessages, tableFingerprint } from '../support/bulk.js';

const TABLES = [
  'users',
  'api_tokens',
  'workspaces',
  'workspace_members',
  'tasks',
  'task_sessions',
  'task_session_turns',
  'task_session_messages',
  'decision_archive',
  'message_queue',
  'answer_links',
  'server_keys',
  'notification_channels',
  'notification_settings',
  'notification_outbox',
  'consent_rules',
  'consent_rule_revocations',
  'replicas',
  'session_leases',
  'mcp_sessions',
  'open_user_inputs',
];

/** How each engine's catalog prints the ordered partial index: keys in order, then the predicate. */
const ORDERED_INDEX_DEFINITION: Record<Driver, RegExp> = {
  sqlite:
    /^CREATE INDEX idx_messages_metadata_pending_id_lookup_ordered ON task_session_messages \(json_extract\(metadata, '\$\.pending_id'\), created_at, id\) WHERE json_extract\(metadata, '\$\.pending_id'\) IS NOT NULL$/,
  postgres:
    /^CREATE INDEX idx_messages_metadata_pending_id_lookup_ordered ON \S*task_session_messages USING btree \(\(\(\(metadata\)::jsonb ->> 'pending_id'::text\)\), created_at, id\) WHERE \(\(\(metadata\)::jsonb ->> 'pending_id'::text\) IS NOT NULL\)$/,
};

/** Just enough of a store over a raw connection for the bulk helpers. */
function legacyStore(db: Kysely<Database>, dialect: Dialect): Store {
  return {
    driver: dialect.driver,
    dialect,
    db,
    clock: systemClock(),
    ids: uuidSource,
    schema: { state: 'ready', steps: 0 },
    wakes: localWakeChannel(),
    transaction: () => Promise.reject(new Error('not used')),
    ping: () => Promise.resolve(),
    refreshStatistics: () => Promise.resolve(),
    close: () => db.destroy(),
  };
}

async function tableNames(store: Store): Promise<string[]> {
  const tables = await store.db.introspection.getTables();
  return tables.map((table) => table.name).sort();
}

async function indexDefinition(store: Store, name: string): Promise<string | undefined> {
  const query =
    store.driver === 'sqlite'
      ? sql<{
          definition: string;
        }>`SELECT sql AS definition FROM sqlite_master WHERE name = ${name}`
      : sql<{
          definition: string;
        }>`SELECT indexdef AS definition FROM pg_indexes WHERE indexname = ${name}`;
  const result = await query.execute(store.db);
  return result.rows[0]?.definition;
}

describe.each(DRIVERS)('schema start-up on %s', (driver) => {
  let database: TestDatabase;
  const opened: Store[] = [];

  async function open(options?: Parameters<typeof openStore>[1]): Promise<Store> {
    const store = await openStore(database.target, options);
    opened.push(store);
    return store;
  }

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
    await database.dispose();
  });

  it('creates every table and index on a fresh database', async () => {
    database = await freshDatabase(driver);
    const store = await open();

    expect(store.schema).toEqual({ state: 'ready', steps: schemaSteps(store.dialect).length });
    // The event log carries events between replicas, and the registry's requests are
    // mirrored for them; SQLite has one server and keeps neither.
    const perDriver =
      driver === 'postgres' ? ['session_events', 'user_input_answers', 'user_input_requests'] : [];
    expect(await tableNames(store)).toEqual([...TABLES, ...perDriver].sort());
    const indexes = await store.dialect.listIndexes(store.db, 'task_session_messages');
    expect(indexes).toEqual(
      expect.arrayContaining([
        PENDING_ID_INDEX,
        PENDING_ID_LOOKUP_INDEX,
        PENDING_ID_ORDERED_INDEX,
        'idx_messages_admission_key',
        'idx_messages_session_created',
        'idx_messages_turn',
      ]),
    );
    expect(await indexDefinition(store, PENDING_ID_ORDERED_INDEX)).toMatch(
      ORDERED_INDEX_DEFINITION[driver],
    );
    // Claims waiting for their delivery and asks attached to a wait, for the replicas' poll.
    for (const name of [DELIVERY_INTENT_INDEX, ATTACHED_ASKS_INDEX]) {
      if (driver === 'postgres') expect(indexes).toContain(name);
      else expect(indexes).not.toContain(name);
    }
  });

  it('replays on an existing database without error or change', async () => {
    database = await freshDatabase(driver);
    const first = await open();
    await insertUnrelatedMessages(first, 200);
    const before = await tableFingerprint(first, 'task_session_messages');
    const indexesBefore = await first.dialect.listIndexes(first.db, 'task_session_messages');
    await first.close();
    opened.splice(0);

    const second = await open();
    expect(second.schema.state).toBe('ready');
    expect(await second.dialect.listIndexes(second.db, 'task_session_messages')).toEqual(
      indexesBefore,
    );
    expect(await tableFingerprint(second, 'task_session_messages')).toEqual(before);
  });

  it('adds the ordered index to a database that only has the two older ones, rows untouched', async () => {
    database = await freshDatabase(driver);
    const legacySteps = (dialect: ReturnType<typeof dialectFor>) =>
      schemaSteps(dialect).filter((step) => step.name !== `index ${PENDING_ID_ORDERED_INDEX}`);
    // The legacy schema lacks the ordered index, so it is built step by step, unverified.
    const dialect = dialectFor(driver);
    const raw = await connectDatabase(database.target);
    for (const step of legacySteps(dialect)) await runSchemaStep(raw, dialect, step);
    const legacy = legacyStore(raw, dialect);
    await insertUnrelatedMessages(legacy, 10_000);
    const indexesBefore = await dialect.listIndexes(raw, 'task_session_messages');
    expect(indexesBefore).toEqual(
      expect.arrayContaining([PENDING_ID_INDEX, PENDING_ID_LOOKUP_INDEX]),
    );
    expect(indexesBefore).not.toContain(PENDING_ID_ORDERED_INDEX);
    const before = await tableFingerprint(legacy, 'task_session_messages');
    await raw.destroy();

    const upgraded = await open();
    expect(await upgraded.dialect.listIndexes(upgraded.db, 'task_session_messages')).toContain(
      PENDING_ID_ORDERED_INDEX,
    );
    expect(await tableFingerprint(upgraded, 'task_session_messages')).toEqual(before);
    expect(before.rows).toBe(10_000);
  });

  it('adds api_tokens.name and last_used_at where missing, keeping rows, and only once', async () => {
    database = await freshDatabase(driver);
    const fresh = await open();
    expect(await fresh.dialect.listColumns(fresh.db, 'api_tokens')).toEqual(
      expect.arrayContaining(['name', 'last_used_at']),
    );
    await fresh.close();
    opened.splice(0);
    await database.dispose();

    // A database from before the columns: the tables as they then were, one token in them.
    database = await freshDatabase(driver);
    const dialect = dialectFor(driver);
    const raw = await connectDatabase(database.target);
    const older = schemaSteps(dialect).filter(
      (step) => 'ddl' in step && /^CREATE TABLE IF NOT EXISTS (users|api_tokens) /.test(step.ddl),
    );
    expect(older).toHaveLength(2);
    for (const step of older) await runSchemaStep(raw, dialect, step);
    expect(await dialect.listColumns(raw, 'api_tokens')).not.toContain('name');
    await sql`INSERT INTO users (id, name, is_admin, created_at, updated_at)
      VALUES ('u1', 'old admin', 1, 't', 't')`.execute(raw);
    await sql`INSERT INTO api_tokens (id, user_id, kind, token_hash, created_at, updated_at)
      VALUES ('k1', 'u1', 'user', 'hash-1', 't', 't')`.execute(raw);
    await raw.destroy();

    const upgraded = await open();
    expect(await upgraded.dialect.listColumns(upgraded.db, 'api_tokens')).toEqual(
      expect.arrayContaining(['name', 'last_used_at']),
    );
    const rows = await upgraded.db.selectFrom('api_tokens').selectAll().execute();
    expect(rows).toEqual([
      expect.objectContaining({ id: 'k1', token_hash: 'hash-1', name: null, last_used_at: null }),
    ]);
    await upgraded.close();
    opened.splice(0);
    // A replay finds the columns in place and changes nothing.
    const replayed = await open();
    expect(await replayed.db.selectFrom('api_tokens').selectAll().execute()).toEqual(rows);
  });

  it('fails closed, naming the step, when creating the ordered index fails', async () => {
    database = await freshDatabase(driver);
    const failing = (dialect: ReturnType<typeof dialectFor>) =>
      schemaSteps(dialect).map((step) =>
        step.name === `index ${PENDING_ID_ORDERED_INDEX}`
          ? { ...step, ddl: 'CREATE INDEX broken ON no_such_table (id)' }
          : step,
      );
    const error: unknown = await openStore(database.target, { steps: failing }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(SchemaStepError);
    expect((error as SchemaStepError).step).toBe(`index ${PENDING_ID_ORDERED_INDEX}`);
    expect((error as SchemaStepError).message).toContain(PENDING_ID_ORDERED_INDEX);
  });

  it('fails closed when an index name is taken by another object', async () => {
    database = await freshDatabase(driver);
    const raw = await connectDatabase(database.target);
    await sql.raw(`CREATE TABLE ${PENDING_ID_ORDERED_INDEX} (id TEXT)`).execute(raw);
    await raw.destroy();

    const error: unknown = await openStore(database.target).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SchemaStepError);
    // SQLite refuses the CREATE itself; PostgreSQL skips it with a notice and the catalog check catches it.
    expect((error as SchemaStepError).message).toContain(PENDING_ID_ORDERED_INDEX);
  });
});
