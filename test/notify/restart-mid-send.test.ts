/**
 * A server stopped while a notice is on its way, and started again, on
 * SQLite and PostgreSQL: a send whose receiver answers within the stop's
 * bound is let finish and recorded delivered, so the restarted server does
 * not send it again (a deploy would otherwise repeat every notice in
 * flight). A receiver that does not answer within the bound is still cut
 * off, and its notice sent again after the restart: at least once.
 */
import { describe, expect, it } from 'vitest';
import type { Driver } from '../../src/store/index.js';
import { eventually } from '../support/clarification-harness.js';
import { DRIVERS } from '../support/databases.js';
import { addChannel, noticesSettled, SHIP_IT } from '../support/notify-options.js';
import { useNotifySuite } from '../support/notify-suite.js';
import { seedAdminSession } from '../support/seed.js';

const ADMIN_TOKEN = 'restart-mid-send-admin-token-01234';
const WAIT_MS = 20_000;
/** Well within the stop's bound (`FAST_NOTIFY`'s 1 s, less what recording keeps). */
const QUICK_REPLY_MS = 150;
/** Far past it. */
const SLOW_REPLY_MS = 5_000;

describe.each(DRIVERS)('a notice in flight when the server stops on %s', (driver: Driver) => {
  const suite = useNotifySuite(driver, ADMIN_TOKEN);

  it.each([
    { reply: 'quick', delayMs: QUICK_REPLY_MS, heard: 1 },
    { reply: 'slow', delayMs: SLOW_REPLY_MS, heard: 2 },
  ])('is sent $heard time(s) when its receiver answers $reply', async ({ delayMs, heard }) => {
    const server = await suite.serve();
    const hook = await suite.receiver((_request, index) => ({
      status: 200,
      delayMs: index === 0 ? delayMs : 0,
    }));
    await addChannel(suite.api(server), { kind: 'webhook', url: hook.url });
    const sessionId = await seedAdminSession(server.store, 'Deployed meanwhile');
    server.clarification.ask(sessionId, SHIP_IT).catch(() => undefined);
    await eventually(() => hook.received.length === 1, WAIT_MS);

    // Stopped while the receiver holds its reply.
    const restarted = await suite.restart();
    await noticesSettled(restarted);
    expect(hook.received).toHaveLength(heard);
  });
});
