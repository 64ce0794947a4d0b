/**
 * A statement whose reply never comes (the server froze, the network was cut
 * mid-statement) is given up at the store's bound and its connection dropped
 * (`src/store/pg-reply-bound.ts`): TCP keepalive would not find it for about
 * 15 minutes, and the connection's late answer would answer the next
 * statement sent on it. The network is cut by a proxy that stops passing
 * anything, leaving every connection open.
 */
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, schemaSteps, type Store } from '../../src/store/index.js';
import { eventually } from '../support/clarification-harness.js';
import { freshDatabase, type TestDatabase } from '../support/databases.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

const BOUND_MS = 1_000;

describe('the store on postgres when a statement gets no reply', () => {
  let database: TestDatabase | undefined;
  let proxy: TcpProxy | undefined;
  let store: Store | undefined;

  afterEach(async () => {
    proxy?.restore();
    await store?.close();
    store = undefined;
    await proxy?.close();
    proxy = undefined;
    await database?.dispose();
    database = undefined;
  });

  /** A store of one pooled connection, through a proxy the test can cut. */
  async function openThroughProxy(
    options: Parameters<typeof openStore>[1] = {},
  ): Promise<{ store: Store; proxy: TcpProxy }> {
    database = await freshDatabase('postgres');
    const { target } = database;
    if (target.driver !== 'postgres') throw new Error('postgres only');
    const direct = new URL(target.url);
    proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port) });
    const proxied = new URL(direct);
    proxied.port = String(proxy.port);
    store = await openStore(
      { driver: 'postgres', url: proxied.href, statementReplyMaxMs: BOUND_MS },
      { poolSize: 1, ...options },
    );
    return { store, proxy };
  }

  const failureOf = (work: Promise<unknown>) =>
    work.then(
      () => undefined,
      (error: unknown) => error,
    );

  it('fails the statement at the bound as unreachable, drops its connection, and recovers', async () => {
    const { store, proxy } = await openThroughProxy();
    await store.ping();
    expect(proxy.openConnections()).toBe(1);

    proxy.blackhole();
    const started = performance.now();
    const error = await failureOf(sql`SELECT 1`.execute(store.db));
    const waitedMs = performance.now() - started;
    expect(error).toMatchObject({ code: 'storage_unavailable', reason: 'unreachable' });
    expect((error as Error).message).toContain(`no reply from PostgreSQL within ${BOUND_MS} ms`);
    // Not before the bound; the upper bound only says "not keepalive's 15 minutes".
    expect(waitedMs).toBeGreaterThanOrEqual(BOUND_MS - 50);
    expect(waitedMs).toBeLessThan(BOUND_MS + 20_000);
    await eventually(() => proxy.openConnections() === 0);

    proxy.restore();
    await store.ping();
    expect(proxy.openConnections()).toBe(1);
  });

  it('gives up the connection of a transaction cut mid-statement instead of pooling it again', async () => {
    const { store, proxy } = await openThroughProxy();
    const error = await failureOf(
      store.transaction(async (tx) => {
        await sql`SELECT 1`.execute(tx.db);
        proxy.blackhole();
        await sql`SELECT 2`.execute(tx.db);
      }),
    );
    expect(error).toMatchObject({ code: 'storage_unavailable', reason: 'unreachable' });
    proxy.restore();
    // One connection in the pool: this gets one only if the cut one was dropped.
    await store.ping();
    const { rows } = await sql<{ n: number }>`SELECT 41 + ${1}::int AS n`.execute(store.db);
    expect(rows[0]?.n).toBe(42);
  });

  it('lets start-up schema steps take longer than the bound, and restores it after', async () => {
    const slowStep = 'SELECT pg_sleep(1.5)';
    const { store } = await openThroughProxy({
      steps: (dialect) => [...schemaSteps(dialect), { name: 'slow step', ddl: slowStep }],
    });
    expect(store.schema.state).toBe('ready');
    const error = await failureOf(sql.raw(slowStep).execute(store.db));
    expect(error).toMatchObject({ code: 'storage_unavailable', reason: 'unreachable' });
  });
});
