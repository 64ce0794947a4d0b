/**
 * Bench data sets, generated inside the database in one statement per load:
 * `INSERT … SELECT` over a recursive CTE (SQLite) or `generate_series`
 * (PostgreSQL), deterministic for a given seed. Rows are shaped like
 * test/support/bulk.ts: streamed user and agent text, one row in a hundred a
 * question of some other, finished bundle. They belong to filler sessions in
 * a workspace of their own, so they are unrelated to every benchmarked bundle.
 *
 * The message indexes are dropped for the load and rebuilt after it with the
 * product's own DDL: building a b-tree once over sorted keys is far cheaper
 * than a million random inserts into eight of them, and the result is the
 * same index.
 */
import { sql } from 'kysely';
import {
  createSession,
  createTask,
  createWorkspace,
  schemaSteps,
  startTurn,
  type Store,
} from '../src/store/index.js';

const MESSAGES = 'task_session_messages';
const FILLER_TABLE = 'bench_fillers';

export interface LoadOptions {
  /** First and one-past-last row number; rows are numbered across loads. */
  from: number;
  to: number;
  seed: number;
  /** One row in `questionEvery` is a finished clarification row (1 = every row). */
  questionEvery: number;
}

/** Creates `count` filler sessions and the lookup table the load joins. */
export async function createFillers(store: Store, count: number): Promise<void> {
  const workspace = await createWorkspace(store, { name: 'bench fillers' });
  await createSessionSlots(store, FILLER_TABLE, workspace.id, count);
}

/**
 * Creates `count` sessions (task, session, current turn) in a workspace and
 * the table `(slot, session_id, task_id, turn_id)` that numbered rows join to
 * spread themselves over the sessions.
 */
export async function createSessionSlots(
  store: Store,
  table: string,
  workspaceId: string,
  count: number,
): Promise<void> {
  if (!/^\w+$/.test(table)) throw new Error(`bad table name ${table}`);
  await sql
    .raw(
      `CREATE TABLE IF NOT EXISTS ${table} ` +
        '(slot INTEGER PRIMARY KEY, session_id TEXT NOT NULL, task_id TEXT NOT NULL, turn_id TEXT NOT NULL)',
    )
    .execute(store.db);
  for (let slot = 0; slot < count; slot++) {
    const task = await createTask(store, { workspaceId, title: `${table} ${slot}` });
    const session = await createSession(store, { taskId: task.id, agentProfile: 'demo' });
    const turn = await startTurn(store, { sessionId: session.id, taskId: task.id });
    await sql`INSERT INTO ${sql.table(table)} VALUES (${slot}, ${session.id}, ${task.id}, ${turn.id})`.execute(
      store.db,
    );
  }
}

/** Loads rows `from`…`to - 1`; returns the milliseconds it took, index rebuild included. */
export async function loadUnrelated(store: Store, options: LoadOptions): Promise<number> {
  const started = performance.now();
  const fillers = await sql<{
    n: number | string;
  }>`SELECT COUNT(*) AS n FROM ${sql.table(FILLER_TABLE)}`.execute(store.db);
  const slots = Number(fillers.rows[0]?.n ?? 0);
  if (slots === 0) throw new Error('createFillers must run before loadUnrelated');
  await withMessageIndexesDropped(store, async () => {
    const statement =
      store.driver === 'sqlite' ? sqliteLoad(options, slots) : postgresLoad(options, slots);
    await sql.raw(statement).execute(store.db);
  });
  await settle(store);
  return performance.now() - started;
}

const COLUMNS =
  'id, task_session_id, task_id, turn_id, author_type, type, content, metadata, ' +
  'requests_input, admission_key, created_at, updated_at';

function integers(options: LoadOptions, slots: number): void {
  for (const value of [options.from, options.to, options.seed, options.questionEvery, slots]) {
    // Spliced into SQL text below, so refuse anything but a safe integer.
    if (!Number.isSafeInteger(value) || value < 0) throw new Error(`bad load parameter ${value}`);
  }
  if (options.to <= options.from || options.questionEvery < 1) throw new Error('empty load');
}

function sqliteLoad(options: LoadOptions, slots: number): string {
  integers(options, slots);
  const { from, to, seed, questionEvery: every } = options;
  const mix = `((n.i + ${seed}) * 2654435761) % 4294967296`;
  const ts = `'2020-01-01T00:00:00.' || printf('%09d', n.i) || 'Z'`;
  return `INSERT INTO ${MESSAGES} (${COLUMNS})
    WITH RECURSIVE n(i) AS (SELECT ${from} UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ${to})
    SELECT
      printf('%08x-%04x-4%03x-a%03x-%012x', ${mix}, ((n.i + ${seed}) * 40503) % 65536, n.i % 4096, (n.i * 7) % 4096, n.i),
      f.session_id, f.task_id, f.turn_id,
      CASE WHEN n.i % ${every} = 0 THEN 'agent' WHEN n.i % 2 = 0 THEN 'user' ELSE 'agent' END,
      CASE WHEN n.i % ${every} = 0 THEN 'clarification_request' ELSE 'message' END,
      'unrelated message ' || n.i,
      CASE WHEN n.i % ${every} = 0
        THEN json_object('pending_id', printf('%08x-%04x-4%03x-b%03x-%012x', ${mix}, ((n.i + ${seed}) * 40503) % 65536, (n.i * 3) % 4096, (n.i * 5) % 4096, n.i),
                         'question_id', 'q1', 'status', 'answered')
        ELSE '{"streamed":true}' END,
      0, NULL, ${ts}, ${ts}
    FROM n JOIN ${FILLER_TABLE} f ON f.slot = n.i % ${slots}`;
}

function postgresLoad(options: LoadOptions, slots: number): string {
  integers(options, slots);
  const { from, to, seed, questionEvery: every } = options;
  const ts = `'2020-01-01T00:00:00.' || lpad(n.i::text, 9, '0') || 'Z'`;
  return `INSERT INTO ${MESSAGES} (${COLUMNS})
    SELECT
      md5('${seed}:message:' || n.i)::uuid::text,
      f.session_id, f.task_id, f.turn_id,
      CASE WHEN n.i % ${every} = 0 THEN 'agent' WHEN n.i % 2 = 0 THEN 'user' ELSE 'agent' END,
      CASE WHEN n.i % ${every} = 0 THEN 'clarification_request' ELSE 'message' END,
      'unrelated message ' || n.i,
      CASE WHEN n.i % ${every} = 0
        THEN json_build_object('pending_id', md5('${seed}:pending:' || n.i)::uuid::text,
                               'question_id', 'q1', 'status', 'answered')::text
        ELSE '{"streamed":true}' END,
      0, NULL, ${ts}, ${ts}
    FROM generate_series(${from}, ${to - 1}) AS n(i)
    JOIN ${FILLER_TABLE} f ON f.slot = n.i % ${slots}`;
}

export interface CloneOptions {
  /** The message row of a real one-question bundle to copy. */
  templateId: string;
  /** A table made by `createSessionSlots`: row `i` goes to slot `i % slots`. */
  table: string;
  count: number;
  seed: number;
}

/**
 * Copies a one-question bundle `count` times, each copy a bundle of its own
 * (a fresh message ID and pending ID, derived from the seed) in the current
 * turn of a slot session. Everything else, the metadata included, is the
 * template's, so the copies are whatever state the product left it in.
 */
export async function cloneBundle(store: Store, options: CloneOptions): Promise<void> {
  const { table, count, seed } = options;
  if (!/^\w+$/.test(table)) throw new Error(`bad table name ${table}`);
  for (const value of [count, seed]) {
    if (!Number.isSafeInteger(value) || value < 1) throw new Error(`bad clone parameter ${value}`);
  }
  const slots = `(SELECT COUNT(*) FROM ${table})`;
  const from =
    store.driver === 'sqlite'
      ? `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ${count})
         SELECT
           printf('%08x-%04x-4%03x-c%03x-%012x', ((n.i + ${seed}) * 2654435761) % 4294967296, ((n.i + ${seed}) * 40503) % 65536, n.i % 4096, (n.i * 7) % 4096, n.i),
           h.session_id, h.task_id, h.turn_id, t.author_type, t.type, t.content,
           json_set(t.metadata, '$.pending_id', printf('%08x-%04x-4%03x-d%03x-%012x', ((n.i + ${seed}) * 2654435761) % 4294967296, ((n.i + ${seed}) * 40503) % 65536, (n.i * 3) % 4096, (n.i * 5) % 4096, n.i)),
           t.requests_input, NULL,
           '2021-01-01T00:00:00.' || printf('%09d', n.i) || 'Z', '2021-01-01T00:00:00.' || printf('%09d', n.i) || 'Z'
         FROM n`
      : `SELECT
           md5('${seed}:clone-row:' || n.i)::uuid::text,
           h.session_id, h.task_id, h.turn_id, t.author_type, t.type, t.content,
           jsonb_set(t.metadata::jsonb, '{pending_id}', to_jsonb(md5('${seed}:clone-bundle:' || n.i)::uuid::text))::text,
           t.requests_input, NULL,
           '2021-01-01T00:00:00.' || lpad(n.i::text, 9, '0') || 'Z', '2021-01-01T00:00:00.' || lpad(n.i::text, 9, '0') || 'Z'
         FROM generate_series(0, ${count - 1}) AS n(i)`;
  await sql`${sql.raw(`INSERT INTO ${MESSAGES} (${COLUMNS}) ${from}
    JOIN ${table} h ON h.slot = n.i % ${slots}
    JOIN ${MESSAGES} t ON t.id = `)}${options.templateId}`.execute(store.db);
  await settle(store);
}

/**
 * Brings the database to a steady state after a load, so background work
 * left over from it does not land inside the measurement: PostgreSQL's
 * autovacuum would vacuum and analyze a table this size soon, and its
 * checkpointer would flush the load's pages; SQLite's WAL would hold the
 * whole load until a checkpoint. (SQLite gets no ANALYZE: Clarion never runs
 * one, so the planner works without statistics, as in production.)
 */
async function settle(store: Store): Promise<void> {
  if (store.driver === 'postgres') {
    await sql.raw(`VACUUM (ANALYZE) ${MESSAGES}`).execute(store.db);
    await sql`CHECKPOINT`.execute(store.db);
  } else {
    await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(store.db);
  }
}

/** The product's index steps on the messages table, by index name, in creation order. */
function messageIndexSteps(store: Store): Map<string, string> {
  const steps = new Map<string, string>();
  for (const step of schemaSteps(store.dialect)) {
    if (!('ddl' in step)) continue;
    const match = /^CREATE (?:UNIQUE )?INDEX IF NOT EXISTS (\w+) ON task_session_messages\b/.exec(
      step.ddl,
    );
    if (match?.[1]) steps.set(match[1], step.ddl);
  }
  return steps;
}

async function withMessageIndexesDropped(store: Store, work: () => Promise<void>): Promise<void> {
  const present = new Set(await store.dialect.listIndexes(store.db, MESSAGES));
  const dropped = [...messageIndexSteps(store)].filter(([name]) => present.has(name));
  for (const [name] of dropped) await dropIndex(store, name);
  try {
    await work();
  } finally {
    for (const [, ddl] of dropped) await sql.raw(ddl).execute(store.db);
  }
}

export async function dropIndex(store: Store, name: string): Promise<void> {
  if (!/^\w+$/.test(name)) throw new Error(`bad index name ${name}`);
  await sql.raw(`DROP INDEX IF EXISTS ${name}`).execute(store.db);
  await settle(store);
}
