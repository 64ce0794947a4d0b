/**
 * The two connections a replica keeps outside the pool, the wake listener
 * and the replica lock, bound their statements' replies as the pool does
 * (`src/store/pg-connection.ts`), and with the target's bound. A partition
 * that begins just as the statement goes out (a proxy that stops passing
 * anything once it sees it) must not leave the listener waiting for its
 * LISTEN forever, never to listen again, nor a replica's start waiting for
 * its lock forever.
 */
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { holdReplicaLock, openStore, type DatabaseTarget } from '../../src/store/index.js';
import { postgresWakeChannel, type WakeChannel } from '../../src/store/wake.js';
import { eventually } from '../support/clarification-harness.js';
import { freshDatabase, type TestDatabase } from '../support/databases.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

const BOUND_MS = 1_000;

describe('a dedicated PostgreSQL connection whose statement gets no reply', () => {
  let database: TestDatabase | undefined;
  let proxy: TcpProxy | undefined;
  let channel: WakeChannel | undefined;

  afterEach(async () => {
    proxy?.restore();
    await channel?.close();
    channel = undefined;
    await proxy?.close();
    proxy = undefined;
    await database?.dispose();
    database = undefined;
  });

  /** The database through a proxy the test can cut, with a short reply bound. */
  async function proxiedTarget(): Promise<{
    target: DatabaseTarget & { driver: 'postgres' };
    direct: DatabaseTarget;
    proxy: TcpProxy;
  }> {
    database = await freshDatabase('postgres');
    const direct = database.target;
    if (direct.driver !== 'postgres') throw new Error('postgres only');
    const url = new URL(direct.url);
    proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port) });
    url.port = String(proxy.port);
    return {
      target: { driver: 'postgres', url: url.href, statementReplyMaxMs: BOUND_MS },
      direct,
      proxy,
    };
  }

  it('the wake listener gives up its LISTEN at the bound, and listens again once the network heals', async () => {
    const { target, direct, proxy } = await proxiedTarget();
    const downs: { error: unknown; atMs: number }[] = [];
    const startedMs = performance.now();
    channel = postgresWakeChannel(
      target.url,
      { onListenerDown: (error) => downs.push({ error, atMs: performance.now() - startedMs }) },
      target.statementReplyMaxMs,
    );
    proxy.blackholeWhenSent('LISTEN');
    const heard: string[] = [];
    let reconnects = 0;
    channel.listen({
      wake: (payload) => heard.push(payload),
      reconnected: () => {
        reconnects += 1;
      },
    });

    await eventually(() => downs.length > 0, 20_000);
    expect(channel.state()).toBe('reconnecting');
    expect(String(downs[0]?.error)).toContain('timeout');
    // Not before the bound; the upper bound only says "not never".
    expect(downs[0]?.atMs).toBeGreaterThanOrEqual(BOUND_MS - 50);
    expect(reconnects).toBe(0);

    proxy.restore();
    // A retry may be waiting out the connect bound of an attempt made while cut.
    await eventually(() => channel?.state() === 'listening', 20_000);
    expect(reconnects).toBe(1);
    const sender = await openStore(direct);
    try {
      await sql`SELECT pg_notify('clarion_wake', 'look')`.execute(sender.db);
      await eventually(() => heard.includes('look'));
    } finally {
      await sender.close();
    }
  });

  it('a replica lock whose statement gets no reply fails at the bound, says why, and drops its connection', async () => {
    const { target, proxy } = await proxiedTarget();
    proxy.blackholeWhenSent('pg_try_advisory_lock');
    const started = performance.now();
    const error = await holdReplicaLock(target).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    const waitedMs = performance.now() - started;
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/^cannot take the replica lock at .*: .*timeout/i);
    const { password } = new URL(target.url);
    expect(password).not.toBe('');
    expect((error as Error).message).not.toContain(password);
    expect(waitedMs).toBeGreaterThanOrEqual(BOUND_MS - 50);
    expect(waitedMs).toBeLessThan(BOUND_MS + 20_000);
    await eventually(() => proxy.openConnections() === 0);

    proxy.restore();
    const lock = await holdReplicaLock(target);
    expect(lock.key).toEqual(expect.any(Number));
    await lock.release();
  });
});
