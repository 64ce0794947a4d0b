/**
 * The outbox is pruned, on SQLite and PostgreSQL: an item that no longer
 * waits loses its notices once each settled longer ago than the retention,
 * and keeps them while any is recent or still owed; an item still waiting
 * keeps them whatever their age (they are what keeps it from being notified
 * twice), and so does each channel's latest row (its last delivery on the
 * settings page). The notifier prunes at its first pass and goes on, a
 * bounded batch per pass, while batches come back full, past rows it keeps.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createNotifier, DEFAULT_NOTIFY_TUNABLES, type Notifier } from '../../src/notify/index.js';
import { silentLogger } from '../../src/observability/logger.js';
import {
  appendMessage,
  claimNextDue,
  createUser,
  giveUpRows,
  insertChannel,
  insertOutboxRows,
  latestRowPerChannel,
  openStore,
  recordAttempt,
  type Store,
} from '../../src/store/index.js';
import { systemTimers } from '../../src/support/timers.js';
import { DRIVERS, freshDatabase, type TestDatabase } from '../support/databases.js';
import { fakeClock, type FakeClock } from '../support/fakes.js';
import { bundleRows, seedSession } from '../support/seed.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const RETENTION_MS = 3 * DAY_MS;

describe.each(DRIVERS)('outbox retention on %s', (driver) => {
  let database: TestDatabase;
  let store: Store;
  let clock: FakeClock;
  let notifier: Notifier | undefined;

  beforeEach(async () => {
    database = await freshDatabase(driver, { migrated: true });
    clock = fakeClock();
    store = await openStore(database.target, { clock });
  });
  afterEach(async () => {
    await notifier?.close();
    notifier = undefined;
    await store.close();
    await database.dispose();
  });

  function startNotifier(pruneBatchRows: number): Notifier {
    notifier = createNotifier({
      store,
      requests: { snapshot: () => [] },
      origin: () => 'http://clarion.test',
      logger: silentLogger,
      senders: new Map(),
      timers: systemTimers,
      tunables: { ...DEFAULT_NOTIFY_TUNABLES, retentionMs: RETENTION_MS, pruneBatchRows },
      allowedHosts: [],
    });
    return notifier;
  }

  async function channel(userId: string, kind: string) {
    const target = `https://${kind}.example.test/hook`;
    const added = await insertChannel(store, {
      userId,
      kind,
      name: kind,
      config: { url: target, secret: 'x'.repeat(16) },
      target,
    });
    if (!added) throw new Error('a first channel is never a duplicate');
    return added.id;
  }

  /** A notice to `channelId` about `occurrence`, written and delivered now. */
  async function delivered(channelId: string, userId: string, event: string, occurrence: string) {
    await insertOutboxRows(store, [{ channelId, userId, event, occurrence, payload: {} }]);
    const claimed = await claimNextDue(store, channelId, clock.nowMs(), 30_000);
    if (claimed?.occurrence !== occurrence) throw new Error(`${occurrence} was not claimed`);
    await recordAttempt(store, claimed, { outcome: 'delivered', status: 200 });
  }

  async function occurrences(): Promise<string[]> {
    const rows = await store.db
      .selectFrom('notification_outbox')
      .select(['occurrence', 'event'])
      .execute();
    return rows.map((row) => `${row.occurrence}:${row.event}`).sort();
  }

  /** A bundle that still waits, seen by nobody with a channel: only the store says it waits. */
  async function waitingBundle(pendingId: string) {
    const seeded = await seedSession(store, 'waiting');
    for (const row of bundleRows(seeded, pendingId, 1)) await appendMessage(store, row);
  }

  it('prunes what settled before the retention and stopped waiting, and keeps the rest', async () => {
    const user = await createUser(store, { name: 'Ann' });
    const hook = await channel(user.id, 'webhook');
    const ntfy = await channel(user.id, 'ntfy');
    const slack = await channel(user.id, 'slack');
    await waitingBundle('waiting');

    // Four days ago.
    await delivered(hook, user.id, 'asked', 'old');
    await delivered(hook, user.id, 'answered', 'old');
    await delivered(ntfy, user.id, 'asked', 'old');
    await delivered(hook, user.id, 'asked', 'waiting');
    await delivered(ntfy, user.id, 'asked', 'waiting');
    await delivered(hook, user.id, 'asked', 'answered-lately');
    await insertOutboxRows(store, [
      { channelId: ntfy, userId: user.id, event: 'asked', occurrence: 'failed', payload: {} },
    ]);
    const failed = await claimNextDue(store, ntfy, clock.nowMs(), 30_000);
    await recordAttempt(store, failed ?? { id: '', claimed_until: null }, {
      outcome: 'gave_up',
      reason: 'failed',
      status: 500,
      error: 'HTTP 500',
      code: 'http_status',
    });
    await insertOutboxRows(store, [
      { channelId: hook, userId: user.id, event: 'asked', occurrence: 'dropped', payload: {} },
    ]);
    const [dropped] = await store.db
      .selectFrom('notification_outbox')
      .select('id')
      .where('occurrence', '=', 'dropped')
      .execute();
    await giveUpRows(
      store,
      [dropped?.id ?? ''],
      'stopped_waiting',
      'no longer waiting',
      'no_longer_waiting',
    );
    await delivered(slack, user.id, 'asked', 'quiet');

    // A day ago: the last notices of the webhook and ntfy channels.
    clock.advance(3 * DAY_MS);
    await delivered(hook, user.id, 'answered', 'answered-lately');
    await delivered(ntfy, user.id, 'asked', 'recent');
    clock.advance(DAY_MS);
    const latestBefore = await latestRowPerChannel(store, [hook, ntfy, slack]);

    const report = await startNotifier(100).reconcileNow();

    expect(report.pruned).toBe(5);
    expect(await occurrences()).toEqual([
      'answered-lately:answered',
      'answered-lately:asked',
      // The slack channel's only notice: its last delivery, however old.
      'quiet:asked',
      'recent:asked',
      'waiting:asked',
      'waiting:asked',
    ]);
    expect(await latestRowPerChannel(store, [hook, ntfy, slack])).toEqual(latestBefore);
  });

  it('prunes a bounded batch per pass, past rows it keeps, until none is full', async () => {
    const user = await createUser(store, { name: 'Ann' });
    // ntfy takes no `answered`, so no pass owes one for these asks.
    const ntfy = await channel(user.id, 'ntfy');
    // The oldest row is kept (its item waits): the walk goes past it, not round it again.
    await waitingBundle('waiting');
    await delivered(ntfy, user.id, 'asked', 'waiting');
    for (const item of ['one', 'two', 'three', 'four']) {
      clock.advance(1_000);
      await delivered(ntfy, user.id, 'asked', item);
    }
    clock.advance(RETENTION_MS + 1_000);
    await delivered(ntfy, user.id, 'asked', 'latest');

    const running = startNotifier(2);
    const pruned = [];
    for (let pass = 0; pass < 4; pass++) pruned.push((await running.reconcileNow()).pruned);

    // Two rows a pass: the waiting one and "one", then "two" and "three", then "four"; then no
    // prune is due until the interval.
    expect(pruned).toEqual([1, 2, 1, 0]);
    expect(await occurrences()).toEqual(['latest:asked', 'waiting:asked']);
  });
});
