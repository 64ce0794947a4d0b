/**
 * Plan evidence for what the notifier reads of the outbox on every reconcile
 * pass (every 5 s, and 200 ms after any event): the delivered asks still to
 * be followed up by `answered` are read through the small partial
 * `idx_notification_outbox_unanswered`, never by scanning the outbox's
 * history, here 20k rows of items long answered; and a prune walks only
 * settled rows, through `idx_notification_outbox_settled`. Dropping the
 * index must change the plan, so the assertion can fail. Plans, not
 * timings, so the test cannot flake.
 */
import { sql, type CompiledQuery } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createUser,
  deliveredAsksWithoutAnswer,
  deliveredAsksWithoutAnswerQuery,
  insertChannel,
  insertOutboxRows,
  openStore,
  SETTLED_ROWS_INDEX,
  settledRowsBeforeQuery,
  timestampAtMs,
  UNANSWERED_ASKS_INDEX,
  UNANSWERED_ASKS_INDEX_DDL,
  type NewOutboxRow,
  type Store,
} from '../../src/store/index.js';
import { DRIVERS, freshDatabase, type TestDatabase } from '../support/databases.js';

const ANSWERED_ITEMS = 10_000;
const KINDS = ['webhook', 'web_push'];

describe.each(DRIVERS)('the outbox reads of a reconcile pass on %s', (driver) => {
  let database: TestDatabase;
  let store: Store;
  let channelId: string;

  beforeAll(async () => {
    database = await freshDatabase(driver, { migrated: true });
    store = await openStore(database.target);
    const user = await createUser(store, { name: 'Ann' });
    const added = await insertChannel(store, {
      userId: user.id,
      kind: 'webhook',
      name: 'hook',
      config: { url: 'https://hook.example.test/', secret: 'x'.repeat(16) },
      target: 'https://hook.example.test/',
    });
    if (!added) throw new Error('a first channel is never a duplicate');
    channelId = added.id;
    const row = (event: string, occurrence: string): NewOutboxRow => ({
      channelId,
      userId: user.id,
      event,
      occurrence,
      payload: { title: 'a task' },
    });
    const history: NewOutboxRow[] = [];
    for (let item = 0; item < ANSWERED_ITEMS; item++) {
      history.push(row('asked', `answered-${item}`), row('answered', `answered-${item}`));
    }
    // Three items still waiting, and one followed up before `answered_at` was kept.
    const open = ['waiting-1', 'waiting-2', 'waiting-3'].map((item) => row('asked', item));
    await insertOutboxRows(store, [...history, ...open, row('asked', 'legacy')]);
    await insertOutboxRows(store, [row('answered', 'legacy')]);
    const delivered = timestampAtMs(store.clock.nowMs());
    await store.db
      .updateTable('notification_outbox')
      .set({ delivered_at: delivered, updated_at: delivered })
      .execute();
    // As `markAsksAnswered` leaves the items it followed up.
    await store.db
      .updateTable('notification_outbox')
      .set({ answered_at: delivered })
      .where('occurrence', 'like', 'answered-%')
      .execute();
  });

  /** What keeps statistics current in production (SQLite's PRAGMA optimize; PostgreSQL's autovacuum). */
  async function refreshAsInProduction(): Promise<void> {
    await store.refreshStatistics();
    if (driver === 'postgres') await sql`ANALYZE`.execute(store.db);
  }

  afterAll(async () => {
    await store.close();
    await database.dispose();
  });

  async function plan(query: { compile(): CompiledQuery }) {
    return (await store.dialect.explain(store.db, query.compile())).join('\n');
  }

  const asksPlan = () => plan(deliveredAsksWithoutAnswerQuery(store, KINDS));

  /** The outbox read through the unanswered-asks index, and no other way. */
  const THROUGH_INDEX = {
    sqlite: /^(SCAN|SEARCH) o USING (COVERING )?INDEX idx_notification_outbox_unanswered\b/m,
    postgres:
      /(Index|Index Only|Bitmap Index) Scan (using|on) idx_notification_outbox_unanswered\b/,
  }[driver];
  const OTHER_READ = {
    sqlite: /^(SCAN|SEARCH) o(?! USING (COVERING )?INDEX idx_notification_outbox_unanswered\b)/m,
    postgres: /Seq Scan on notification_outbox o\b/,
  }[driver];

  it('finds exactly the delivered asks still to be followed up', async () => {
    const asks = await deliveredAsksWithoutAnswer(store, KINDS);
    expect(asks.map((ask) => ask.occurrence).sort()).toEqual([
      'waiting-1',
      'waiting-2',
      'waiting-3',
    ]);
  });

  it('reads them through the unanswered-asks index, and reads history once it is dropped', async () => {
    // With statistics from before the rows (a database that grew since), then current ones.
    for (const statistics of ['stale', 'current']) {
      if (statistics === 'current') await refreshAsInProduction();
      const withIndex = await asksPlan();
      console.info(`[${driver}] delivered asks plan, ${statistics} statistics:\n${withIndex}`);
      expect(withIndex).toMatch(THROUGH_INDEX);
      expect(withIndex).not.toMatch(OTHER_READ);
      // Whether each has its `answered` is one probe per ask, not a read of every `answered`.
      expect(withIndex).not.toMatch(/^SCAN a\b|Seq Scan on notification_outbox|Hash Anti Join/m);
    }

    await sql.raw(`DROP INDEX ${UNANSWERED_ASKS_INDEX}`).execute(store.db);
    try {
      const withoutIndex = await asksPlan();
      console.info(`[${driver}] without it:\n${withoutIndex}`);
      expect(withoutIndex).not.toContain(UNANSWERED_ASKS_INDEX);
      expect(withoutIndex).toMatch(OTHER_READ);
    } finally {
      await sql.raw(UNANSWERED_ASKS_INDEX_DDL).execute(store.db);
    }
  });

  it('walks only settled rows, through the settled-rows index', async () => {
    await refreshAsInProduction();
    const before = timestampAtMs(store.clock.nowMs() + 1_000);
    const first = await plan(settledRowsBeforeQuery(store, before, null, 1_000));
    const next = await plan(
      settledRowsBeforeQuery(store, before, { updatedAt: before, id: 'x' }, 1_000),
    );
    console.info(`[${driver}] prune batch plan:\n${first}\nand after a cursor:\n${next}`);
    for (const text of [first, next]) {
      expect(text).toContain(SETTLED_ROWS_INDEX);
      expect(text).not.toMatch(/TEMP B-TREE|Sort/);
    }
  });
});
