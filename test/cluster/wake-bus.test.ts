/**
 * The wake bus on a real PostgreSQL, two stores on one database standing for
 * two replicas: a wake sent in a transaction arrives after its commit and
 * never after a rollback; a killed listener reconnects, and while it is down
 * the poll backstop still finds what the lost wake said. On SQLite the same
 * send is an in-process emit after the commit.
 */
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { createWakeBus, parseWake, type Wake, type WakeBus } from '../../src/cluster/index.js';
import { silentLogger } from '../../src/observability/logger.js';
import {
  openStore,
  WAKE_LISTENER_APPLICATION,
  type Driver,
  type Store,
} from '../../src/store/index.js';
import { systemTimers } from '../../src/support/timers.js';
import { freshDatabase, withPgAdmin, type TestDatabase } from '../support/databases.js';

const POLL_MS = 200;

async function eventually(check: () => boolean | Promise<boolean>, withinMs = 5_000) {
  const deadline = Date.now() + withinMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('wake bus', () => {
  let database: TestDatabase | undefined;
  const stores: Store[] = [];
  const buses: WakeBus[] = [];

  afterEach(async () => {
    for (const bus of buses.splice(0)) bus.close();
    for (const store of stores.splice(0)) await store.close();
    await database?.dispose();
    database = undefined;
  });

  async function replica(driver: Driver, replicaId: string, pollIntervalMs = 60_000) {
    database ??= await freshDatabase(driver, { migrated: true });
    const store = await openStore(database.target);
    stores.push(store);
    const bus = createWakeBus({
      store,
      replicaId,
      timers: systemTimers,
      logger: silentLogger,
      pollIntervalMs,
    });
    buses.push(bus);
    const heard: Wake[] = [];
    bus.subscribe({
      kinds: ['session'],
      wake: (wake) => heard.push(wake),
      resync: () => undefined,
    });
    return { store, bus, heard };
  }

  it('encodes ids only, and ignores a payload it does not know', () => {
    expect(parseWake('a session s-1')).toEqual({
      origin: 'a',
      topic: { kind: 'session', sessionId: 's-1' },
    });
    expect(parseWake('a registry r-1')?.topic).toEqual({ kind: 'registry', requestId: 'r-1' });
    expect(parseWake('a mcp_close m-1')?.topic).toEqual({ kind: 'mcp_close', mcpSessionId: 'm-1' });
    expect(parseWake('a access u-1')?.topic).toEqual({ kind: 'access', userId: 'u-1' });
    expect(parseWake('a credentials u-1')?.topic).toEqual({ kind: 'credentials', userId: 'u-1' });
    expect(parseWake('a rules u-1')?.topic).toEqual({ kind: 'rules', userId: 'u-1' });
    expect(parseWake('a people w-1')?.topic).toEqual({ kind: 'people', subjectId: 'w-1' });
    expect(parseWake('a members u-1')?.topic).toEqual({ kind: 'members', userId: 'u-1' });
    expect(parseWake('a tokens u-1')?.topic).toEqual({ kind: 'tokens', userId: 'u-1' });
    expect(parseWake('a notifications u-1')?.topic).toEqual({
      kind: 'notifications',
      userId: 'u-1',
    });
    expect(parseWake('a released b')?.topic).toEqual({ kind: 'released', replicaId: 'b' });
    expect(parseWake('a gossip s-1')).toBeUndefined();
    expect(parseWake('a session')).toBeUndefined();
  });

  it.each(['postgres', 'sqlite'] as const)(
    'on %s a wake arrives after the commit and never after a rollback',
    async (driver) => {
      const a = await replica(driver, 'A');
      // SQLite has one server: the sender hears itself.
      const b = driver === 'postgres' ? await replica(driver, 'B') : a;
      if (driver === 'postgres') await eventually(() => b.bus.listenerState() === 'listening');
      else expect(b.bus.listenerState()).toBe('local');

      await a.store.transaction(async (tx) => {
        await a.bus.send(tx, { kind: 'session', sessionId: 'committed' });
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(b.heard).toEqual([]);
      });
      await eventually(() => b.heard.length === 1);
      expect(b.heard[0]).toEqual({
        origin: 'A',
        topic: { kind: 'session', sessionId: 'committed' },
      });

      await expect(
        a.store.transaction(async (tx) => {
          await a.bus.send(tx, { kind: 'session', sessionId: 'rolled-back' });
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      // Wakes arrive in commit order: once the next one is here, the rolled-back one never comes.
      await a.bus.send(a.store, { kind: 'session', sessionId: 'after' });
      await eventually(() => b.heard.length >= 2);
      expect(b.heard.map((wake) => wake.topic)).toEqual([
        { kind: 'session', sessionId: 'committed' },
        { kind: 'session', sessionId: 'after' },
      ]);
    },
  );

  it('a killed listener reconnects, and while it is down the poll backstop still finds the change', async () => {
    const a = await replica('postgres', 'A');
    database ??= await freshDatabase('postgres', { migrated: true });
    const name = new URL((database.target as { url: string }).url).pathname.slice(1);
    await sql`CREATE TABLE wake_probe (id TEXT PRIMARY KEY)`.execute(a.store.db);

    // Replica B learns of probe rows by wake and by resync, and says which told it first.
    const b = await replica('postgres', 'B', POLL_MS);
    const found = new Map<string, 'wake' | 'resync'>();
    const look = async (how: 'wake' | 'resync') => {
      const rows = await sql<{ id: string }>`SELECT id FROM wake_probe`.execute(b.store.db);
      for (const { id } of rows.rows) if (!found.has(id)) found.set(id, how);
    };
    let resyncs = 0;
    b.bus.subscribe({
      kinds: ['session'],
      wake: () => void look('wake'),
      resync: () => {
        resyncs += 1;
        return look('resync');
      },
    });
    await eventually(() => b.bus.listenerState() === 'listening');

    const probe = async (id: string) => {
      await a.store.transaction(async (tx) => {
        await sql`INSERT INTO wake_probe (id) VALUES (${id})`.execute(tx.db);
        await a.bus.send(tx, { kind: 'session', sessionId: id });
      });
    };

    // The listener dies and cannot come back: every notification meanwhile is lost.
    await withPgAdmin(async (client) => {
      await client.query(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS false`);
      await client.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE application_name = $1 AND datname = $2`,
        [WAKE_LISTENER_APPLICATION, name],
      );
    });
    await eventually(() => b.bus.listenerState() === 'reconnecting');
    const downSince = Date.now();
    await probe('while-down');
    await eventually(() => found.has('while-down'), 10 * POLL_MS);
    expect(found.get('while-down')).toBe('resync');
    expect(b.bus.listenerState()).toBe('reconnecting');
    expect(Date.now() - downSince).toBeLessThan(10 * POLL_MS);

    // Back: the reconnect itself resyncs, and wakes flow again.
    const before = resyncs;
    await withPgAdmin((client) =>
      client.query(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS true`),
    );
    await eventually(() => b.bus.listenerState() === 'listening', 10_000);
    expect(resyncs).toBeGreaterThan(before);
    await probe('after');
    await eventually(() => found.has('after'));
    expect(b.heard.at(-1)?.topic).toEqual({ kind: 'session', sessionId: 'after' });
  });
});
