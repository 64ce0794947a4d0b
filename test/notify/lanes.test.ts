/**
 * The outbox's lanes, one per channel: a channel whose send hangs holds its
 * own lane only. Each poll starts at most `lanesPerPoll` lanes; a channel
 * whose lane already runs must not take one of those places from a channel
 * waiting for its first. A receiver that failed is not sent the channel's
 * backlog at once, and its `Retry-After` holds back every notice to it.
 */
import { describe, expect, it } from 'vitest';
import type { Driver } from '../../src/store/index.js';
import { eventually } from '../support/clarification-harness.js';
import { DRIVERS } from '../support/databases.js';
import { addChannel, FAST_NOTIFY, SHIP_IT } from '../support/notify-options.js';
import { useNotifySuite } from '../support/notify-suite.js';
import { seedAdminSession } from '../support/seed.js';

const ADMIN_TOKEN = 'notify-lanes-admin-token-0123456789';
/** Within `FAST_NOTIFY`'s 3 s send bound: the slow channel's lane runs all this time. */
const HELD_REPLY_MS = 2_500;

describe.each(DRIVERS)('the outbox lanes on %s', (driver: Driver) => {
  const suite = useNotifySuite(driver, ADMIN_TOKEN);

  it('reaches a second channel while the first one’s send hangs, one lane a poll', async () => {
    const server = await suite.serve(
      {},
      {
        ...FAST_NOTIFY,
        tunables: { ...FAST_NOTIFY.tunables, lanesPerPoll: 1 },
      },
    );
    const slow = await suite.receiver(() => ({ status: 200, delayMs: HELD_REPLY_MS }));
    const quick = await suite.receiver();
    // Added first, the slow one is what a poll finds first.
    await addChannel(suite.api(server), { kind: 'webhook', url: slow.url });
    await addChannel(suite.api(server), { kind: 'webhook', url: quick.url });
    // Two items: while the slow channel's lane holds one notice, the other is due there too.
    for (const title of ['First', 'Second']) {
      const sessionId = await seedAdminSession(server.store, title);
      server.clarification.ask(sessionId, SHIP_IT).catch(() => undefined);
    }

    await eventually(() => slow.received.length === 1, 10_000);
    const heldAt = Date.now();
    await eventually(() => quick.received.length === 2, 10_000);
    // Before the slow reply: not after it, when its lane would end and free the poll's place.
    expect(Date.now() - heldAt).toBeLessThan(HELD_REPLY_MS - 500);
  });

  it('sends a channel whose receiver said Retry-After nothing more until then, then all', async () => {
    const server = await suite.serve();
    // `FAST_NOTIFY` caps a backoff at 400 ms: the receiver's 30 s comes down to that.
    const busy = await suite.receiver((_request, index) =>
      index === 0 ? { status: 503, headers: { 'retry-after': '30' } } : { status: 200 },
    );
    await addChannel(suite.api(server), { kind: 'webhook', url: busy.url });
    for (const title of ['First', 'Second']) {
      const sessionId = await seedAdminSession(server.store, title);
      server.clarification.ask(sessionId, SHIP_IT).catch(() => undefined);
    }
    await eventually(() => busy.received.length === 3, 10_000);
    const [refused, next] = busy.received;
    // Not the other notice at once: both wait out what the receiver asked.
    expect((next?.at ?? 0) - (refused?.at ?? 0)).toBeGreaterThanOrEqual(300);
  });
});
