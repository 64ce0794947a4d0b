/**
 * Notices of a question whose answer could not be delivered, on SQLite and
 * PostgreSQL: the real clarification stack and the notifier, with senders
 * that record what they are given. A person answers a detached question;
 * its agent is not ready for the answer, which goes back to pending. While
 * the answer is on its way a reconcile pass runs: no channel is told the
 * question was answered, and the `asked` notice still owed to a failing
 * channel is owed again once the question waits again, then sent.
 *
 * The agent's readiness is the test's to give: `startSlowly` holds the
 * delivery at its readiness check until the test lets it through as not
 * ready, so the pass lands while the claim waits, whatever the machine's pace.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChannelSender, Notice, SendResult } from '../../src/notify/index.js';
import { createNotifier, DEFAULT_NOTIFY_TUNABLES, type Notifier } from '../../src/notify/index.js';
import { silentLogger } from '../../src/observability/logger.js';
import { insertChannel, type Driver } from '../../src/store/index.js';
import { systemTimers } from '../../src/support/timers.js';
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

/** Records every notice it is given; `reply` decides each attempt's result. */
function recordingSender(kind: ChannelKind) {
  const sent: Notice[] = [];
  const sender: ChannelSender & { sent: Notice[]; reply: () => SendResult } = {
    kind,
    sent,
    reply: () => ({ ok: true, status: 200 }),
    send(_target, notice) {
      sent.push(notice);
      return Promise.resolve(sender.reply());
    },
  };
  return sender;
}

/** Retried in ten minutes: still owed while the test runs. */
const FAILING: SendResult = {
  ok: false,
  status: 503,
  error: 'HTTP 503',
  code: 'http_status',
  retryable: true,
  retryAfterMs: 600_000,
};

describe.each(DRIVERS)(
  'notices of an answer that could not be delivered on %s',
  (driver: Driver) => {
    let h: Harness;
    let notifier: Notifier | undefined;

    beforeEach(async () => {
      h = await clarificationHarness(driver);
    });

    afterEach(async () => {
      h.runtime.finishStart();
      await notifier?.close();
      notifier = undefined;
      await h.dispose();
    });

    async function channel(kind: ChannelKind) {
      const url = `https://${kind}.example.test/hook`;
      const added = await insertChannel(h.store, {
        userId: h.memberId,
        kind,
        name: kind,
        config: { url, secret: 'x'.repeat(16) },
        target: url,
      });
      if (!added) throw new Error('a first channel is never a duplicate');
      return added.id;
    }

    async function askedRow(channelId: string) {
      return h.store.db
        .selectFrom('notification_outbox')
        .selectAll()
        .where('channel_id', '=', channelId)
        .where('event', '=', 'asked')
        .executeTakeFirstOrThrow();
    }

    it('tells no channel it was answered, and sends the `asked` it still owed once it waits again', async () => {
      const webhook = recordingSender('webhook');
      const ntfy = recordingSender('ntfy');
      ntfy.reply = () => FAILING;
      // Passes run only when the test asks: no timer, no published change, starts one.
      notifier = createNotifier({
        store: h.store,
        requests: { snapshot: () => [] },
        origin: () => 'https://clarion.example.test',
        logger: silentLogger,
        senders: new Map<ChannelKind, ChannelSender>([
          ['webhook', webhook],
          ['ntfy', ntfy],
        ]),
        timers: systemTimers,
        tunables: DEFAULT_NOTIFY_TUNABLES,
        allowedHosts: [],
        random: () => 0,
      });
      await channel('webhook');
      const ntfyId = await channel('ntfy');

      // Detached at once: its answer starts a new turn, which needs the agent ready.
      const asked = await h.service.ask(h.seeded.session.id, TWO_QUESTIONS, { timeoutMs: 1 });
      if (!asked.ok || asked.outcome !== 'open') throw new Error('the question did not stay open');
      const { pendingId } = asked;
      await notifier.reconcileNow();
      await eventually(() => webhook.sent.length === 1 && ntfy.sent.length === 1, WAIT_MS);
      expect((await askedRow(ntfyId)).delivered_at).toBeNull();

      h.runtime.startSlowly();
      const responding = h.respond(pendingId, ANSWERS);
      await eventually(async () => {
        const rows = await h.rows(pendingId);
        return rows.every((row) => row.metadata.status === 'answered');
      }, WAIT_MS);
      // The answer is claimed and waits at its agent's readiness check.
      await notifier.reconcileNow();
      const answered = await h.store.db
        .selectFrom('notification_outbox')
        .select('event')
        .where('event', '=', 'answered')
        .execute();
      expect(answered).toEqual([]);

      h.runtime.unavailable = 'still starting';
      h.runtime.finishStart();
      expect((await responding).status).toBe(500);
      const rows = await h.rows(pendingId);
      expect(rows.map((row) => row.metadata.status)).toEqual(rows.map(() => 'pending'));

      ntfy.reply = () => ({ ok: true, status: 200 });
      await notifier.reconcileNow();
      await eventually(async () => (await askedRow(ntfyId)).delivered_at !== null, WAIT_MS);
      expect(ntfy.sent.map((notice) => `${notice.event}:${notice.itemId}`)).toEqual([
        `asked:${pendingId}`,
        `asked:${pendingId}`,
      ]);
      // Nothing was answered: the webhook (and a phone's notification) still says it asks.
      await notifier.reconcileNow();
      expect(webhook.sent.map((notice) => `${notice.event}:${notice.itemId}`)).toEqual([
        `asked:${pendingId}`,
      ]);
    });
  },
);
