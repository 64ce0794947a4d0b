/**
 * The scaffolding the notify suites share, per test: a fresh migrated
 * database on the suite's driver, the server a test starts on it (with
 * `FAST_NOTIFY`), and the stand-ins it sends to (a push service, a webhook
 * receiver). `useNotifySuite` registers the hooks: after each test the
 * server stops, then the stand-ins, then the database goes.
 */
import { afterEach, beforeEach } from 'vitest';
import type { Config } from '../../src/config.js';
import { silentLogger } from '../../src/observability/logger.js';
import { startServer, type NotifyOptions, type RunningServer } from '../../src/server.js';
import type { Driver } from '../../src/store/index.js';
import { freshDatabase, type TestDatabase } from './databases.js';
import { bearerApi, serverConfig, type ApiCall } from './in-process-server.js';
import { FAST_NOTIFY } from './notify-options.js';
import { startPushService, type PushServiceStub } from './push-service.js';
import { startReceiver, type Receiver } from './receiver.js';

export interface NotifySuite {
  /** A server on this test's database; `overrides` change its config, `notify` its notifier's. */
  serve(overrides?: Partial<Config>, notify?: NotifyOptions): Promise<RunningServer>;
  /** Stops the test's server, as a deploy would, and starts another like it on its database. */
  restart(): Promise<RunningServer>;
  /** The admin's REST calls to `server`. */
  api(server: RunningServer): ApiCall;
  /** A local push service (`push-service.ts`), closed after the test. */
  pushService(): Promise<PushServiceStub>;
  /** A webhook receiver (`receiver.ts`), closed after the test. */
  receiver(respond?: Parameters<typeof startReceiver>[0]): Promise<Receiver>;
}

export function useNotifySuite(driver: Driver, adminToken: string): NotifySuite {
  let database: TestDatabase | undefined;
  let server:
    { running: RunningServer; overrides: Partial<Config>; notify: NotifyOptions } | undefined;
  const stubs: { close(): Promise<void> }[] = [];

  beforeEach(async () => {
    database = await freshDatabase(driver, { migrated: true });
  });

  afterEach(async () => {
    await server?.running.close();
    server = undefined;
    for (const stub of stubs.splice(0)) await stub.close();
    await database?.dispose();
    database = undefined;
  });

  async function serve(
    overrides: Partial<Config> = {},
    notify: NotifyOptions = FAST_NOTIFY,
  ): Promise<RunningServer> {
    if (!database) throw new Error('the database is made in beforeEach');
    if (server) throw new Error('one server per test: restart() replaces it');
    const running = await startServer(serverConfig(database, adminToken, overrides), silentLogger, {
      notify,
    });
    server = { running, overrides, notify };
    return running;
  }

  async function kept<T extends { close(): Promise<void> }>(stub: Promise<T>): Promise<T> {
    const started = await stub;
    stubs.push(started);
    return started;
  }

  return {
    serve,
    async restart() {
      if (!server) throw new Error('serve() first');
      const { running, overrides, notify } = server;
      server = undefined;
      await running.close();
      return serve(overrides, notify);
    },
    api: (running) => bearerApi(running.url, adminToken),
    pushService: () => kept(startPushService()),
    receiver: (respond) => kept(startReceiver(respond)),
  };
}
