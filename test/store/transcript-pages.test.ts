/**
 * A transcript read from either end: oldest first (the API's default) and
 * newest first (what the web app opens a session with, paging back on
 * demand). Rows that share a timestamp are ordered by ID, so a page boundary
 * inside such a run neither skips nor repeats a row. Both orders walk the
 * session/time index, the newest-first one backwards, without a sort.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  openStore,
  transcriptPage,
  transcriptRowsQuery,
  type Store,
  type TranscriptCursor,
  type TranscriptOrder,
} from '../../src/store/index.js';
import { insertUnrelatedMessages } from '../support/bulk.js';
import { DRIVERS, freshDatabase, type TestDatabase } from '../support/databases.js';
import { seedSession, type Seeded } from '../support/seed.js';

const UNRELATED_MESSAGES = 20_000;
/** A long day's transcript: the one whose pages must not cost the rows before them. */
const LONG_TRANSCRIPT = 20_000;
const SESSION_INDEX = 'idx_messages_session_created';

/** Seven rows: three at one instant, four at the next, inserted out of ID order. */
const ROWS = [
  { id: 'm-3', at: '2026-01-01T00:00:00.000000001Z' },
  { id: 'm-1', at: '2026-01-01T00:00:00.000000001Z' },
  { id: 'm-2', at: '2026-01-01T00:00:00.000000001Z' },
  { id: 'm-7', at: '2026-01-01T00:00:00.000000002Z' },
  { id: 'm-5', at: '2026-01-01T00:00:00.000000002Z' },
  { id: 'm-4', at: '2026-01-01T00:00:00.000000002Z' },
  { id: 'm-6', at: '2026-01-01T00:00:00.000000002Z' },
];

describe.each(DRIVERS)('transcript pages on %s', (driver) => {
  let database: TestDatabase;
  let store: Store;
  let seeded: Seeded;
  let long: Seeded;

  beforeAll(async () => {
    database = await freshDatabase(driver, { migrated: true });
    store = await openStore(database.target);
    await insertUnrelatedMessages(store, UNRELATED_MESSAGES);
    seeded = await seedSession(store, 'target');
    await store.db
      .insertInto('task_session_messages')
      .values(
        ROWS.map((row) => ({
          id: row.id,
          task_session_id: seeded.session.id,
          task_id: seeded.task.id,
          turn_id: seeded.turn.id,
          author_type: 'agent',
          type: 'message',
          content: row.id,
          metadata: '{}',
          requests_input: 0,
          admission_key: null,
          created_at: row.at,
          updated_at: row.at,
        })),
      )
      .execute();
    long = await seedSession(store, 'long');
    for (let start = 0; start < LONG_TRANSCRIPT; start += 500) {
      await store.db
        .insertInto('task_session_messages')
        .values(
          Array.from({ length: 500 }, (_, offset) => {
            const at = `2026-01-02T00:00:${String(Math.floor((start + offset) / 1000)).padStart(2, '0')}.${String(start + offset).padStart(9, '0')}Z`;
            return {
              id: `long-${String(start + offset).padStart(6, '0')}`,
              task_session_id: long.session.id,
              task_id: long.task.id,
              turn_id: long.turn.id,
              author_type: 'agent',
              type: 'message',
              content: 'streamed',
              metadata: '{}',
              requests_input: 0,
              admission_key: null,
              created_at: at,
              updated_at: at,
            };
          }),
        )
        .execute();
    }
    await store.refreshStatistics();
    if (driver === 'postgres') await sql`ANALYZE`.execute(store.db);
  }, 120_000);

  afterAll(async () => {
    await store.close();
    await database.dispose();
  });

  async function readAll(order: TranscriptOrder, limit: number) {
    const pages: string[][] = [];
    let after: TranscriptCursor | undefined;
    for (let read = 0; read < 10; read++) {
      const page = await transcriptPage(store, seeded.session.id, {
        limit,
        order,
        ...(after ? { after } : {}),
      });
      pages.push(page.messages.map((message) => message.id));
      if (!page.next) return pages;
      after = page.next;
    }
    throw new Error('the transcript never ended');
  }

  it('pages newest first across equal timestamps without gaps or repeats', async () => {
    // Page boundaries fall inside both runs of equal timestamps: after m-5 and after m-2.
    expect(await readAll('newest_first', 3)).toEqual([
      ['m-7', 'm-6', 'm-5'],
      ['m-4', 'm-3', 'm-2'],
      ['m-1'],
    ]);
    expect(await readAll('newest_first', 7)).toEqual([
      ['m-7', 'm-6', 'm-5', 'm-4', 'm-3', 'm-2', 'm-1'],
    ]);
  });

  it('still pages oldest first, the same rows the other way', async () => {
    expect(await readAll('oldest_first', 3)).toEqual([
      ['m-1', 'm-2', 'm-3'],
      ['m-4', 'm-5', 'm-6'],
      ['m-7'],
    ]);
  });

  it('reads nothing of another session, and an empty one ends at once', async () => {
    const empty = await transcriptPage(store, 'missing', { limit: 3, order: 'newest_first' });
    expect(empty).toEqual({ messages: [], next: null });
  });

  it.each(['newest_first', 'oldest_first'] as const)(
    'reads a %s page after a cursor through the session/time index, without a sort',
    async (order) => {
      const cursor = (
        await transcriptPage(store, long.session.id, { limit: LONG_TRANSCRIPT / 2, order })
      ).next;
      if (!cursor) throw new Error('the long transcript has more than a page');
      const query = transcriptRowsQuery(store, long.session.id, {
        limit: 200,
        order,
        after: cursor,
      }).compile();
      const plan = (await store.dialect.explain(store.db, query)).join('\n');
      console.info(`[${driver}] ${order} transcript page plan:\n${plan}`);
      expect(plan).toContain(SESSION_INDEX);
      expect(plan).not.toMatch(/TEMP B-TREE|Sort/);
      if (driver === 'postgres' && order === 'newest_first') expect(plan).toMatch(/Backward/);
    },
  );
});
