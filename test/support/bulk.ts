import { randomUUID } from 'node:crypto';
/**
 * Bulk data for schema and plan tests: many messages that have nothing to do
 * with the bundle under test, written in multi-row batches on either driver.
 */
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Store } from '../../src/store/index.js';
import { seedSession } from './seed.js';

const BATCH_ROWS = 500;

const MESSAGE_COLUMNS =
  'id, task_session_id, task_id, turn_id, author_type, type, content, metadata, ' +
  'requests_input, admission_key, created_at, updated_at';

/**
 * `count` messages over a handful of sessions, shaped like real transcripts:
 * streamed agent and user text, with one row in a hundred a question of some
 * other bundle (a random UUID pending ID, like real bundles).
 *
 * The shape matters to PostgreSQL's planner: the ordered index is partial, so
 * it is small when most rows have no pending ID, and that is what makes it
 * cheaper than the bare lookup index. With one row in ten a question, the
 * planner was seen to prefer a bitmap scan of the bare index plus a sort.
 */
export async function insertUnrelatedMessages(store: Store, count: number): Promise<void> {
  const sessions = await Promise.all(
    Array.from({ length: 4 }, (_, index) => seedSession(store, `unrelated ${index}`)),
  );
  for (let start = 0; start < count; start += BATCH_ROWS) {
    const rows = [];
    for (let offset = start; offset < Math.min(count, start + BATCH_ROWS); offset++) {
      const seeded = sessions[offset % sessions.length];
      if (!seeded) throw new Error('no session');
      const now = store.clock.timestamp();
      const isQuestion = offset % 100 === 0;
      rows.push({
        id: store.ids.next(),
        task_session_id: seeded.session.id,
        task_id: seeded.task.id,
        turn_id: seeded.turn.id,
        author_type: isQuestion ? 'agent' : offset % 2 === 0 ? 'user' : 'agent',
        type: isQuestion ? 'clarification_request' : 'message',
        content: `unrelated message ${offset}`,
        metadata: JSON.stringify(
          isQuestion ? { pending_id: randomUUID(), question_id: 'q1' } : { streamed: true },
        ),
        requests_input: 0,
        admission_key: null,
        created_at: now,
        updated_at: now,
      });
    }
    await store.db.insertInto('task_session_messages').values(rows).execute();
  }
}

/** Row count and a hash over every column of every row, to prove rows were not rewritten. */
export async function tableFingerprint(
  store: Store,
  table: 'task_session_messages',
): Promise<{ rows: number; sha256: string }> {
  const rows = await store.db.selectFrom(table).selectAll().orderBy('id').execute();
  const hash = createHash('sha256');
  for (const row of rows) hash.update(JSON.stringify(row));
  return { rows: rows.length, sha256: hash.digest('hex') };
}

/**
 * `count` sessions of one workspace, each a task, a live session and a
 * current turn holding one pending one-question bundle, written by a handful
 * of `INSERT … SELECT` statements over a recursive counter (valid on both
 * drivers). Around them, the rows the inbox must skip: every session also
 * has an older turn with a superseded pending bundle and streamed text in
 * its current turn, and one session in ten has ended (its bundle still
 * says pending). Bundle `i` has pending ID `<tag>-p-<i>` and is ordered by
 * `i`; IDs carry `tag`, so calls do not collide. Returns how many bundles
 * are active.
 */
export async function insertPendingSessions(
  store: Store,
  options: { workspaceId: string; count: number; tag: string },
): Promise<{ live: number }> {
  const { workspaceId, count, tag } = options;
  if (!/^\w+$/.test(tag) || !Number.isSafeInteger(count) || count < 1) {
    throw new Error('bad bulk parameters');
  }
  const counter = `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ${count})`;
  const at = (base: string) => `'${base}' || (100000000 + n.i) || 'Z'`;
  const ended = `n.i % 10 = 9`;
  const statements = [
    `INSERT INTO tasks (id, workspace_id, title, created_by, created_at, updated_at)
     ${counter} SELECT '${tag}-t-' || n.i, '${workspaceId}', 'bulk task', NULL,
       ${at('2021-01-01T00:00:00.')}, ${at('2021-01-01T00:00:00.')} FROM n`,
    `INSERT INTO task_sessions (id, task_id, agent_profile, state, agent_session_id, revision, created_at, updated_at)
     ${counter} SELECT '${tag}-s-' || n.i, '${tag}-t-' || n.i, 'demo',
       CASE WHEN ${ended} THEN 'completed' ELSE 'waiting_for_input' END, NULL, 0,
       ${at('2021-01-01T00:00:00.')}, ${at('2021-01-01T00:00:00.')} FROM n`,
    `INSERT INTO task_session_turns (id, task_session_id, task_id, started_at, completed_at, metadata, created_at, updated_at)
     ${counter} SELECT '${tag}-u-' || n.i || '-' || k.turn, '${tag}-s-' || n.i, '${tag}-t-' || n.i,
       CASE WHEN k.turn = 0 THEN ${at('2021-01-02T00:00:00.')} ELSE ${at('2021-01-03T00:00:00.')} END,
       NULL, '{}', ${at('2021-01-01T00:00:00.')}, ${at('2021-01-01T00:00:00.')}
     FROM n CROSS JOIN (SELECT 0 AS turn UNION ALL SELECT 1) k`,
    `INSERT INTO task_session_messages (${MESSAGE_COLUMNS})
     ${counter} SELECT '${tag}-m-' || n.i || '-' || k.turn, '${tag}-s-' || n.i, '${tag}-t-' || n.i,
       '${tag}-u-' || n.i || '-' || k.turn, 'agent', 'clarification_request', 'bulk question',
       '{"pending_id":"${tag}-' || CASE WHEN k.turn = 1 THEN 'p' ELSE 'old' END || '-' || n.i || '","question_id":"q1","status":"pending"}',
       1, NULL, ${at('2021-01-04T00:00:00.')}, ${at('2021-01-04T00:00:00.')}
     FROM n CROSS JOIN (SELECT 0 AS turn UNION ALL SELECT 1) k`,
    `INSERT INTO task_session_messages (${MESSAGE_COLUMNS})
     ${counter} SELECT '${tag}-x-' || n.i || '-' || k.j, '${tag}-s-' || n.i, '${tag}-t-' || n.i,
       '${tag}-u-' || n.i || '-1', 'agent', 'message', 'streamed text', '{"streamed":true}',
       0, NULL, ${at('2021-01-05T00:00:00.')}, ${at('2021-01-05T00:00:00.')}
     FROM n CROSS JOIN (SELECT 0 AS j UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3) k`,
  ];
  for (const statement of statements) await sql.raw(statement).execute(store.db);
  return { live: count - Math.floor(count / 10) };
}
