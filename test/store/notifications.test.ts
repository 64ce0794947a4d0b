/**
 * The outbox in the store, on both databases: the unique key refuses a second
 * notice for one item, and a row claimed by a server that died mid-send falls
 * due again once its lease runs out, and not before.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  claimNextDue,
  createUser,
  insertChannel,
  insertOutboxRows,
  openStore,
  recordAttempt,
  type Store,
} from '../../src/store/index.js';
import { DRIVERS, freshDatabase, type TestDatabase } from '../support/databases.js';

describe.each(DRIVERS)('the notification outbox on %s', (driver) => {
  let database: TestDatabase;
  let store: Store;

  beforeEach(async () => {
    database = await freshDatabase(driver);
    store = await openStore(database.target);
  });
  afterEach(async () => {
    await store.close();
    await database.dispose();
  });

  async function channel() {
    const user = await createUser(store, { name: 'Ann' });
    return insertChannel(store, {
      userId: user.id,
      kind: 'webhook',
      name: 'hook',
      config: { url: 'http://127.0.0.1:1/', secret: 'x'.repeat(16) },
    });
  }

  it('keeps one row per (channel, event, item), however often it is planned', async () => {
    const { id, user_id: userId } = await channel();
    const row = { channelId: id, userId, event: 'asked', occurrence: 'b1', payload: { a: 1 } };
    expect(await insertOutboxRows(store, [row, row])).toBe(1);
    expect(await insertOutboxRows(store, [row, { ...row, event: 'reminder' }])).toBe(1);
    const rows = await store.db.selectFrom('notification_outbox').selectAll().execute();
    expect(rows.map((r) => r.event).sort()).toEqual(['asked', 'reminder']);
  });

  it('gives a claimed row back only after its lease', async () => {
    const { id, user_id: userId } = await channel();
    await insertOutboxRows(store, [
      { channelId: id, userId, event: 'asked', occurrence: 'b1', payload: {} },
    ]);
    const now = store.clock.nowMs() + 1_000;
    const claimed = await claimNextDue(store, id, now, 30_000);
    expect(claimed).toMatchObject({ attempts: 1, occurrence: 'b1' });
    // The server dies here: nothing recorded. Within the lease nobody takes it…
    expect(await claimNextDue(store, id, now + 29_000, 30_000)).toBeUndefined();
    // …after it, it is due again, the same row under the same delivery ID.
    const again = await claimNextDue(store, id, now + 30_001, 30_000);
    expect(again).toMatchObject({ id: claimed?.id, attempts: 2 });
    await recordAttempt(store, again?.id ?? '', { outcome: 'delivered', status: 200 });
    expect(await claimNextDue(store, id, now + 99_000_000, 30_000)).toBeUndefined();
  });
});
