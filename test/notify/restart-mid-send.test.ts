/**
 * A server stopped while a notice is on its way, and started again, on
 * SQLite and PostgreSQL: a send whose receiver answers within the stop's
 * bound is let finish and recorded delivered, so the restarted server does
 * not send it again (a deploy would otherwise repeat every notice in
 * flight). A receiver that does not answer within the bound is still cut
 * off, and its notice sent again after the restart: at least once.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/observability/logger.js';
import { startServer, type RunningServer } from '../../src/server.js';
import type { Driver } from '../../src/store/index.js';
import { eventually } from '../support/clarification-harness.js';
import { DRIVERS, freshDatabase, type TestDatabase } from '../support/databases.js';
import { bearerApi, serverConfig } from '../support/in-process-server.js';
import { addChannel, FAST_NOTIFY, noticesSettled, SHIP_IT } from '../support/notify-options.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { seedAdminSession } from '../support/seed.js';

const ADMIN_TOKEN = 'restart-mid-send-admin-token-01234';
const WAIT_MS = 20_000;
/** Well within the stop's bound (`FAST_NOTIFY`'s 1 s, less what recording keeps). */
const QUICK_REPLY_MS = 150;
/** Far past it. */
const SLOW_REPLY_MS = 5_000;

describe.each(DRIVERS)('a notice in flight when the server stops on %s', (driver: Driver) => {
  let database: TestDatabase;
  let server: RunningServer | undefined;
  let receiver: Receiver | undefined;

  beforeEach(async () => {
    database = await freshDatabase(driver, { migrated: true });
  });

  afterEach(async () => {
    await server?.close();
    server = undefined;
    await receiver?.close();
    receiver = undefined;
    await database.dispose();
  });

  const start = () =>
    startServer(serverConfig(database, ADMIN_TOKEN), silentLogger, { notify: FAST_NOTIFY });

  it.each([
    { reply: 'quick', delayMs: QUICK_REPLY_MS, heard: 1 },
    { reply: 'slow', delayMs: SLOW_REPLY_MS, heard: 2 },
  ])('is sent $heard time(s) when its receiver answers $reply', async ({ delayMs, heard }) => {
    server = await start();
    const hook = await startReceiver((_request, index) => ({
      status: 200,
      delayMs: index === 0 ? delayMs : 0,
    }));
    receiver = hook;
    await addChannel(bearerApi(server.url, ADMIN_TOKEN), { kind: 'webhook', url: hook.url });
    const sessionId = await seedAdminSession(server.store, 'Deployed meanwhile');
    server.clarification.ask(sessionId, SHIP_IT).catch(() => undefined);
    await eventually(() => hook.received.length === 1, WAIT_MS);

    // Stopped while the receiver holds its reply.
    await server.close();
    server = await start();
    await noticesSettled(server);
    expect(hook.received).toHaveLength(heard);
  });
});
