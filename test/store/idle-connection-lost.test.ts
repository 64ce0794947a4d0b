/**
 * A PostgreSQL restart, an admin, or `idle_session_timeout` can end the
 * store's idle pooled connections at any time. The pool re-emits that as an
 * 'error' event, which ends the process unless someone listens: the store
 * must hear it, say so, and carry on with new connections.
 */
import { sql } from 'kysely';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { idempotentOnNewConnection, openStore, type Store } from '../../src/store/index.js';
import { eventually } from '../support/clarification-harness.js';
import { freshDatabase, type TestDatabase } from '../support/databases.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

describe('the store on postgres when its connections are ended', () => {
  let database: TestDatabase | undefined;
  let store: Store | undefined;

  afterEach(async () => {
    await store?.close();
    store = undefined;
    await database?.dispose();
    database = undefined;
  });

  /** A fresh PostgreSQL database, reached through a TCP proxy the test can cut. */
  async function databaseBehindProxy(): Promise<{ proxy: TcpProxy; proxied: URL }> {
    database = await freshDatabase('postgres');
    const { target } = database;
    if (target.driver !== 'postgres') throw new Error('postgres only');
    const direct = new URL(target.url);
    const proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port) });
    const proxied = new URL(direct);
    proxied.port = String(proxy.port);
    return { proxy, proxied };
  }

  it('reports each lost idle connection and serves the next query on a new one', async () => {
    database = await freshDatabase('postgres');
    const { target } = database;
    if (target.driver !== 'postgres') throw new Error('postgres only');
    const lost: unknown[] = [];
    store = await openStore(target, {
      onIdleConnectionLost: (error) => {
        lost.push(error);
      },
    });
    // Two queries at once leave two connections idle in the pool.
    await Promise.all([store.ping(), sql`SELECT pg_sleep(0.05)`.execute(store.db)]);

    const admin = new pg.Client({ connectionString: target.url });
    await admin.connect();
    try {
      const { rows } = await admin.query<{ ended: boolean }>(
        `SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid()`,
      );
      expect(rows.filter((row) => row.ended).length).toBeGreaterThanOrEqual(2);
    } finally {
      await admin.end();
    }

    await eventually(() => lost.length >= 2);
    expect(lost.every((error) => (error as { code?: string }).code === '57P01')).toBe(true);
    // Reported without the client pg-pool attaches (its statements and settings would be logged).
    expect(lost.filter((error) => Object.hasOwn(error as object, 'client'))).toEqual([]);
    await store.ping();
  });

  it('fails a statement whose connection drops under it, as unreachable, and lives on', async () => {
    const { proxy, proxied } = await databaseBehindProxy();
    try {
      store = await openStore({ driver: 'postgres', url: proxied.href });
      // Checked out of the pool, a connection has no listener of the pool's: its end must not
      // reach the process as an unheard 'error' event.
      const failed = sql`SELECT pg_sleep(30)`.execute(store.db).then(
        () => undefined,
        (error: unknown) => error,
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      // The network drops it: no message from the server, the socket just ends.
      await proxy.close();
      expect(await failed).toMatchObject({ code: 'storage_unavailable', reason: 'unreachable' });
      // Long enough for an unheard 'error' event to have ended this process.
      await new Promise((resolve) => setTimeout(resolve, 200));
    } finally {
      await proxy.close();
    }
  });

  /**
   * A network cut ends all the pool's idle connections at once. Work that may
   * run twice (the stop's token revocation, a lease renewal) fails once on a
   * dead connection and must succeed on its retry: the pool has heard the
   * other ends by then and hands out a live connection, not another dead one.
   */
  it('retries idempotent work on a live connection when every idle one died at once', async () => {
    const { proxy, proxied } = await databaseBehindProxy();
    try {
      store = await openStore({ driver: 'postgres', url: proxied.href }, { poolSize: 6 });
      const open = store;
      await Promise.all(
        Array.from({ length: 6 }, () => sql`SELECT pg_sleep(0.05)`.execute(open.db)),
      );
      expect(proxy.openConnections()).toBeGreaterThanOrEqual(6);

      for (let round = 0; round < 5; round += 1) {
        proxy.resetConnections();
        const { rows } = await idempotentOnNewConnection(() =>
          sql<{ one: number }>`SELECT 1 AS one`.execute(open.db),
        );
        expect(rows).toEqual([{ one: 1 }]);
        await Promise.all(
          Array.from({ length: 6 }, () => sql`SELECT pg_sleep(0.05)`.execute(open.db)),
        );
      }
    } finally {
      await proxy.close();
    }
  });
});
