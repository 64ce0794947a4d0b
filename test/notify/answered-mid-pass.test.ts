/**
 * A notice planned from a reading an answer has since overtaken is not sent,
 * on SQLite and PostgreSQL: the real clarification stack and the notifier,
 * with a sender that records what it is given. A pass reads what waits
 * first and writes its rows last; an answer committed in between leaves an
 * `asked` row for an item no longer waiting, due at once. Its attempt reads
 * again whether the item waits, and gives the row up as no longer waiting
 * instead of telling the person an agent asks.
 *
 * The answer lands mid-pass deterministically: the pass reads the
 * registry's requests after the store's bundles, and the test's registry
 * port answers (or settles its request) right then, once.
 *
 * And an `answered` is not planned while another server's send of the
 * item's reminder to that channel is still on its way: sent first, it would
 * close the phone's notice before the reminder put it back, for good.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChannelSender, Notice, WaitingRequests } from '../../src/notify/index.js';
import { createNotifier, DEFAULT_NOTIFY_TUNABLES, type Notifier } from '../../src/notify/index.js';
import { silentLogger } from '../../src/observability/logger.js';
import {
  claimNextDue,
  insertChannel,
  insertOutboxRows,
  recordAttempt,
  type Driver,
} from '../../src/store/index.js';
import { systemTimers } from '../../src/support/timers.js';
import type { UserInputView } from '../../src/user-input/index.js';
import type { ChannelKind } from '../../src/wire/index.js';
import {
  ANSWERS,
  clarificationHarness,
  eventually,
  TWO_QUESTIONS,
  type Harness,
} from '../support/clarification-harness.js';
import { DRIVERS } from '../support/databases.js';

/** Generous: a loaded machine, and PostgreSQL, are slower than a pass. */
const WAIT_MS = 15_000;

describe.each(DRIVERS)('an item answered while a pass plans on %s', (driver: Driver) => {
  let h: Harness;
  let notifier: Notifier | undefined;
  const sent: Notice[] = [];

  beforeEach(async () => {
    h = await clarificationHarness(driver);
    sent.length = 0;
  });

  afterEach(async () => {
    await notifier?.close();
    notifier = undefined;
    await h.dispose();
  });

  /** A notifier with one channel of the member's; passes run only when the test asks. */
  async function startNotifier(
    requests: WaitingRequests,
    kind: ChannelKind = 'ntfy',
  ): Promise<Notifier> {
    const sender: ChannelSender = {
      kind,
      send(_target, notice) {
        sent.push(notice);
        return Promise.resolve({ ok: true, status: 200 });
      },
    };
    notifier = createNotifier({
      store: h.store,
      requests,
      origin: () => 'https://clarion.example.test',
      logger: silentLogger,
      senders: new Map<ChannelKind, ChannelSender>([[kind, sender]]),
      timers: systemTimers,
      tunables: DEFAULT_NOTIFY_TUNABLES,
      allowedHosts: [],
      random: () => 0,
    });
    const url = 'https://ntfy.example.test/topic';
    await insertChannel(h.store, {
      userId: h.memberId,
      kind,
      name: kind,
      config: { url },
      target: url,
    });
    return notifier;
  }

  /** The `asked` row, once its attempt settled it (delivered or given up). */
  async function settledAsk() {
    const row = () =>
      h.store.db
        .selectFrom('notification_outbox')
        .selectAll()
        .where('event', '=', 'asked')
        .executeTakeFirstOrThrow();
    await eventually(async () => {
      const asked = await row();
      return asked.delivered_at !== null || asked.gave_up_at !== null;
    }, WAIT_MS);
    return row();
  }

  it('sends no `asked` for a question answered after the pass read it', async () => {
    const asked = await h.service.ask(h.seeded.session.id, TWO_QUESTIONS, { timeoutMs: 1 });
    if (!asked.ok || asked.outcome !== 'open') throw new Error('the question did not stay open');
    let answered = false;
    const running = await startNotifier({
      async snapshot() {
        if (!answered) {
          answered = true;
          expect((await h.respond(asked.pendingId, ANSWERS)).status).toBe(200);
        }
        return [];
      },
    });

    // Planned from the reading before the answer: the row is written, and due now.
    expect((await running.reconcileNow()).inserted).toBe(1);
    const row = await settledAsk();
    expect(sent).toEqual([]);
    expect(row).toMatchObject({
      delivered_at: null,
      gave_up_reason: 'stopped_waiting',
      last_error: 'no longer waiting',
    });
  });

  it('sends no `asked` for a request settled after the pass read it', async () => {
    const { session, task } = h.seeded;
    const consent = {
      kind: 'consent',
      id: 'consent-1',
      session_id: session.id,
      task_id: task.id,
      status: 'awaiting',
      created_at: h.store.clock.timestamp(),
      deadline_at: null,
      title: 'npm publish',
    } as unknown as UserInputView;
    // Awaiting when the pass reads it; settled by the time its notice would go.
    let reads = 0;
    const running = await startNotifier({
      snapshot: () => (reads++ === 0 ? [consent] : [{ ...consent, status: 'settled' }]),
    });

    expect((await running.reconcileNow()).inserted).toBe(1);
    const row = await settledAsk();
    expect(sent).toEqual([]);
    expect(row).toMatchObject({ delivered_at: null, gave_up_reason: 'stopped_waiting' });
  });

  it('holds `answered` back while another server’s send of its reminder is on its way', async () => {
    const asked = await h.service.ask(h.seeded.session.id, TWO_QUESTIONS, { timeoutMs: 1 });
    if (!asked.ok || asked.outcome !== 'open') throw new Error('the question did not stay open');
    // A channel that takes notices back (Web Push): the device is told, and sent it here.
    const running = await startNotifier({ snapshot: () => [] }, 'web_push');
    expect((await running.reconcileNow()).inserted).toBe(1);
    const told = await settledAsk();
    expect(told.delivered_at).not.toBeNull();

    // Its reminder, taken by another server's lane: claimed, its push on the way.
    const [channel] = await h.store.db.selectFrom('notification_channels').selectAll().execute();
    if (!channel) throw new Error('the channel was added');
    await insertOutboxRows(h.store, [
      {
        channelId: channel.id,
        userId: h.memberId,
        event: 'reminder',
        occurrence: asked.pendingId,
        payload: { ...(JSON.parse(told.payload) as object), event: 'reminder' },
      },
    ]);
    const reminder = await claimNextDue(h.store, channel.id, h.store.clock.nowMs(), 30_000);
    expect(reminder?.event).toBe('reminder');

    // Answered on the desktop meanwhile: nothing says so until that push is settled…
    expect((await h.respond(asked.pendingId, ANSWERS)).status).toBe(200);
    await running.reconcileNow();
    const answeredRows = () =>
      h.store.db
        .selectFrom('notification_outbox')
        .selectAll()
        .where('event', '=', 'answered')
        .execute();
    expect(await answeredRows()).toEqual([]);
    expect(sent.map((notice) => notice.event)).toEqual(['asked']);

    // …and then `answered` follows it, and takes it back.
    await recordAttempt(h.store, reminder ?? { id: '', claimed_until: null }, {
      outcome: 'delivered',
      status: 201,
    });
    expect((await running.reconcileNow()).inserted).toBe(1);
    await eventually(() => sent.length === 2, WAIT_MS);
    expect(sent.map((notice) => notice.event)).toEqual(['asked', 'answered']);
    expect(await answeredRows()).toHaveLength(1);
  });
});
