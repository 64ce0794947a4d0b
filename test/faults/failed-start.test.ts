/**
 * A start that fails after the server began listening (the store stops
 * answering while the queues an earlier stop left are drained) must leave
 * nothing running: its port free and its notifier stopped, so the process
 * exits and its supervisor starts it again. Before, the listener kept the
 * process alive answering `/healthz` with 503 while the notifier logged a
 * failure every few seconds, forever.
 */
import { connect } from 'node:net';
import type { KyselyPlugin } from 'kysely';
import { pino } from 'pino';
import { afterEach, expect, it } from 'vitest';
import { startServer } from '../../src/server.js';
import { freshDatabase, type TestDatabase } from '../support/databases.js';
import { serverConfig } from '../support/in-process-server.js';

let database: TestDatabase | undefined;

afterEach(async () => {
  await database?.dispose();
  database = undefined;
});

/** Whether anything accepts a connection at `url` now. */
function accepts(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => {
      resolve(false);
    });
  });
}

it('a start whose store fails once it listens frees its port and stops its notifier', async () => {
  database = await freshDatabase('sqlite');
  const lines: { msg?: string; url?: string; component?: string }[] = [];
  const logger = pino(
    { level: 'info' },
    {
      write: (line: string) => {
        lines.push(JSON.parse(line) as (typeof lines)[number]);
      },
    },
  );
  // Every statement after the listen fails, as a store that just went away would.
  const listened = () => lines.some((line) => line.msg === 'listening');
  const failAfterListen: KyselyPlugin = {
    transformQuery(args) {
      if (listened()) throw new Error('injected: the store stopped answering');
      return args.node;
    },
    transformResult: (args) => Promise.resolve(args.result),
  };

  await expect(
    startServer(serverConfig(database, 'failed-start-admin-token-0123456789'), logger, {
      plugins: [failAfterListen],
      notify: { tunables: { reconcileIntervalMs: 50, pollIntervalMs: 50, debounceMs: 10 } },
    }),
  ).rejects.toThrow('injected: the store stopped answering');

  const url = lines.find((line) => line.msg === 'listening')?.url;
  expect(url).toBeDefined();
  await expect(accepts(url ?? '')).resolves.toBe(false);
  const logged = lines.length;
  // Many of the notifier's intervals: a running one would have logged its failures by now.
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(lines.slice(logged)).toEqual([]);
});
