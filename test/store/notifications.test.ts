/**
 * The outbox in the store, on both databases: the unique key refuses a second
 * notice for one item, and a row claimed by a server that died mid-send falls
 * due again once its lease runs out, and not before. A row owed again (its
 * person may see the item again) while a send of it is in flight somewhere
 * waits for that send: it is sent once, and that send's failure does not
 * settle the row owed again. One owed again while it waited out a backoff
 * is due at once. A channel whose browser session expired is neither
 * listed nor claimed while its row waits for the prune.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  channelsWithDueRows,
  claimNextDue,
  createUser,
  giveUpRows,
  insertChannel,
  insertOutboxRows,
  insertToken,
  markAsksAnswered,
  openStore,
  promptsInFlight,
  rearmOutboxRows,
  recordAttempt,
  timestampAtMs,
  type Store,
} from '../../src/store/index.js';
import { DRIVERS, freshDatabase, type TestDatabase } from '../support/databases.js';

describe.each(DRIVERS)('the notification outbox on %s', (driver) => {
  let database: TestDatabase;
  let store: Store;

  beforeEach(async () => {
    database = await freshDatabase(driver, { migrated: true });
    store = await openStore(database.target);
  });
  afterEach(async () => {
    await store.close();
    await database.dispose();
  });

  async function channel() {
    const user = await createUser(store, { name: 'Ann' });
    const added = await insertChannel(store, {
      userId: user.id,
      kind: 'webhook',
      name: 'hook',
      config: { url: 'http://127.0.0.1:1/', secret: 'x'.repeat(16) },
      target: 'http://127.0.0.1:1/',
    });
    if (!added) throw new Error('a first channel is never a duplicate');
    return added;
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
    await recordAttempt(store, again ?? { id: '', claimed_until: null }, {
      outcome: 'delivered',
      status: 200,
    });
    expect(await claimNextDue(store, id, now + 99_000_000, 30_000)).toBeUndefined();
  });

  it('neither lists nor claims a channel once its browser session has expired', async () => {
    const { id, user_id: userId } = await channel();
    const now = store.clock.nowMs() + 1_000;
    const session = await insertToken(store, {
      userId,
      kind: 'browser',
      tokenHash: 'h'.repeat(64),
      expiresAt: timestampAtMs(now + 60_000),
    });
    await store.db
      .updateTable('notification_channels')
      .set({ browser_session_id: session.id })
      .where('id', '=', id)
      .execute();
    await insertOutboxRows(store, [
      { channelId: id, userId, event: 'asked', occurrence: 'b1', payload: {} },
    ]);
    // Its row waits for the prune: meanwhile the device is sent nothing.
    const expired = now + 60_000;
    expect(await channelsWithDueRows(store, expired, 10)).toEqual([]);
    expect(await claimNextDue(store, id, expired, 30_000)).toBeUndefined();
    // Before, it was live: listed and claimed.
    expect((await channelsWithDueRows(store, now, 10)).map((c) => c.id)).toEqual([id]);
    expect(await claimNextDue(store, id, now, 30_000)).toMatchObject({ attempts: 1 });
  });

  async function claimedRow(occurrence = 'b1') {
    const { id, user_id: userId } = await channel();
    await insertOutboxRows(store, [
      { channelId: id, userId, event: 'asked', occurrence, payload: {} },
    ]);
    const claimedAtMs = store.clock.nowMs();
    const claimed = await claimNextDue(store, id, claimedAtMs, 30_000);
    if (!claimed) throw new Error('nothing claimed');
    return { channelId: id, claimed, claimedAtMs };
  }

  /** What the reconciler does when the person leaves and comes back. */
  async function leaveAndComeBack(rowId: string) {
    await giveUpRows(store, [rowId], 'not_visible', 'gone', 'not_visible');
    return rearmOutboxRows(store, [{ id: rowId, payload: { fresh: true } }]);
  }

  const outboxRow = (id: string) =>
    store.db
      .selectFrom('notification_outbox')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();

  it('keeps a row re-armed mid-send for that send, whose delivery settles it', async () => {
    const { channelId, claimed, claimedAtMs } = await claimedRow();
    expect(await leaveAndComeBack(claimed.id)).toBe(1);
    // Another server finds nothing due while the first send may still be in flight…
    expect(await claimNextDue(store, channelId, claimedAtMs + 29_000, 30_000)).toBeUndefined();
    // …and that send's delivery is the row's: it is not sent again.
    await recordAttempt(store, claimed, { outcome: 'delivered', status: 200 });
    expect(await outboxRow(claimed.id)).toMatchObject({ gave_up_at: null, claimed_until: null });
    expect((await outboxRow(claimed.id)).delivered_at).not.toBeNull();
    expect(await claimNextDue(store, channelId, claimedAtMs + 99_000_000, 30_000)).toBeUndefined();
  });

  it('lets no send from before a re-arm give up or back off the row owed again', async () => {
    const { channelId, claimed, claimedAtMs } = await claimedRow();
    await leaveAndComeBack(claimed.id);
    // The first send's recheck saw the person gone; its verdict lands after the re-arm.
    await recordAttempt(store, claimed, {
      outcome: 'gave_up',
      reason: 'not_visible',
      status: null,
      error: 'gone',
      code: 'not_visible',
    });
    await recordAttempt(store, claimed, {
      outcome: 'retry',
      status: 503,
      error: 'busy',
      code: 'http_status',
      nextAttemptMs: claimedAtMs + 3_600_000,
    });
    expect(await outboxRow(claimed.id)).toMatchObject({
      gave_up_at: null,
      attempts: 0,
      payload: JSON.stringify({ fresh: true }),
    });
    // Owed again, with attempts of its own, once the first claim's lease is over.
    const again = await claimNextDue(store, channelId, claimedAtMs + 30_001, 30_000);
    expect(again).toMatchObject({ id: claimed.id, attempts: 1 });
    expect(again?.claimed_until).not.toBe(claimed.claimed_until);
  });

  it('ends the claim of a send whose row was given up meanwhile, whatever the send says', async () => {
    // An item that stops waiting drops its owed prompts mid-send; a claim held past the send
    // would read as a prompt on its way, holding back the `answered` that follows for a lease.
    const retried = await claimedRow('b1');
    await giveUpRows(
      store,
      [retried.claimed.id],
      'stopped_waiting',
      'no longer waiting',
      'no_longer_waiting',
    );
    await recordAttempt(store, retried.claimed, {
      outcome: 'retry',
      status: 503,
      error: 'busy',
      code: 'http_status',
      nextAttemptMs: retried.claimedAtMs + 3_600_000,
    });
    expect(await outboxRow(retried.claimed.id)).toMatchObject({
      claimed_until: null,
      gave_up_reason: 'stopped_waiting',
      last_error: 'no longer waiting',
    });
    const asks = [{ channelId: retried.channelId, occurrence: 'b1' }];
    expect(await promptsInFlight(store, asks, retried.claimedAtMs + 1_000)).toEqual([]);
  });

  it('judges a bulk of asks each by its own (channel, item) pair', async () => {
    const { id: first, user_id: userId } = await channel();
    const other = await insertChannel(store, {
      userId,
      kind: 'webhook',
      name: 'other hook',
      config: { url: 'http://127.0.0.1:2/', secret: 'y'.repeat(16) },
      target: 'http://127.0.0.1:2/',
    });
    if (!other) throw new Error('a second target is no duplicate');
    const second = other.id;
    const prompt = (channelId: string, event: string, occurrence: string) => ({
      channelId,
      userId,
      event,
      occurrence,
      payload: {},
    });
    // A prompt on its way to each channel, each for an item the other channel has idle.
    await insertOutboxRows(store, [prompt(first, 'asked', 'b1')]);
    await insertOutboxRows(store, [prompt(second, 'reminder', 'b2')]);
    const nowMs = store.clock.nowMs();
    expect(await claimNextDue(store, first, nowMs, 30_000)).toBeDefined();
    expect(await claimNextDue(store, second, nowMs, 30_000)).toBeDefined();
    await insertOutboxRows(store, [prompt(first, 'asked', 'b2'), prompt(second, 'asked', 'b1')]);
    // More asks than one statement's slice: the pairs that matter sit in different slices.
    const idle = Array.from({ length: 250 }, (_, n) => ({ channelId: first, occurrence: `x${n}` }));
    const asks = [
      { channelId: first, occurrence: 'b1' },
      ...idle,
      { channelId: first, occurrence: 'b2' },
      { channelId: second, occurrence: 'b1' },
      { channelId: second, occurrence: 'b2' },
    ];
    expect(await promptsInFlight(store, asks, nowMs + 1_000)).toEqual([
      { channelId: first, occurrence: 'b1' },
      { channelId: second, occurrence: 'b2' },
    ]);

    await markAsksAnswered(store, [...idle, { channelId: first, occurrence: 'b2' }]);
    const marked = await store.db
      .selectFrom('notification_outbox')
      .select(['channel_id', 'occurrence'])
      .where('answered_at', 'is not', null)
      .execute();
    expect(marked).toEqual([{ channel_id: first, occurrence: 'b2' }]);
  });

  it('owes a row its own sender gave up again at once', async () => {
    const { channelId, claimed } = await claimedRow();
    await recordAttempt(store, claimed, {
      outcome: 'gave_up',
      reason: 'not_visible',
      status: null,
      error: 'gone',
      code: 'not_visible',
    });
    expect(await rearmOutboxRows(store, [{ id: claimed.id, payload: {} }])).toBe(1);
    const again = await claimNextDue(store, channelId, store.clock.nowMs(), 30_000);
    expect(again).toMatchObject({ id: claimed.id, attempts: 1 });
  });

  it('owes a row given up while it waited out a backoff again at once', async () => {
    const { channelId, claimed, claimedAtMs } = await claimedRow();
    await recordAttempt(store, claimed, {
      outcome: 'retry',
      status: 503,
      error: 'busy',
      code: 'http_status',
      nextAttemptMs: claimedAtMs + 3_600_000,
    });
    expect(await leaveAndComeBack(claimed.id)).toBe(1);
    const again = await claimNextDue(store, channelId, store.clock.nowMs(), 30_000);
    expect(again).toMatchObject({ id: claimed.id, attempts: 1 });
  });
});
