import { randomUUID } from 'node:crypto';
/**
 * Bulk data for schema and plan tests: many messages that have nothing to do
 * with the bundle under test, written in multi-row batches on either driver.
 */
import { createHash } from 'node:crypto';
import type { Store } from '../../src/store/index.js';
import { seedSession } from './seed.js';

const BATCH_ROWS = 500;

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
