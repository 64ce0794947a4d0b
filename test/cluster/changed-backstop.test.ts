/**
 * `changed`, what a `wait_for_answer` on one replica sleeps on while another
 * may decide its question (issue 16), on a real PostgreSQL: a session's wake
 * lost while this replica's listener is down still ends the sleep at the
 * poll backstop, so the wait reads the store again within a poll or two.
 * Before, only a wake or the wait's own timeout (up to `MAX_WAIT_SECONDS`)
 * ended it.
 */
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { claimReplicas, createWakeBus, type WakeBus } from '../../src/cluster/index.js';
import { silentLogger } from '../../src/observability/logger.js';
import { openStore, WAKE_LISTENER_APPLICATION, type Store } from '../../src/store/index.js';
import { systemTimers } from '../../src/support/timers.js';
import { eventually } from '../support/clarification-harness.js';
import { withPgAdmin } from '../support/databases.js';
import { freshPostgres } from '../support/replicas.js';

const POLL_MS = 200;
/** The sleep's own bound: far beyond a few polls. */
const SLEEP_MS = 30_000;

describe('a wait for a session’s change when its wake is lost, on postgres', () => {
  let database: Awaited<ReturnType<typeof freshPostgres>> | undefined;
  let name = '';
  const stores: Store[] = [];
  const buses: WakeBus[] = [];

  afterEach(async () => {
    if (database && name) {
      await withPgAdmin((client) =>
        client.query(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS true`),
      );
    }
    for (const bus of buses.splice(0)) bus.close();
    for (const store of stores.splice(0)) await store.close();
    await database?.dispose();
    database = undefined;
  });

  async function replica(replicaId: string) {
    database ??= await freshPostgres();
    const store = await openStore(database.target);
    stores.push(store);
    const bus = createWakeBus({
      store,
      replicaId,
      timers: systemTimers,
      logger: silentLogger,
      pollIntervalMs: POLL_MS,
    });
    buses.push(bus);
    return { store, bus };
  }

  it('ends at the poll backstop, not at its own bound', { timeout: 60_000 }, async () => {
    const a = await replica('A');
    const b = await replica('B');
    if (!database) throw new Error('no database');
    name = new URL(database.target.url).pathname.slice(1);
    // Subscribed once, so A's listener runs.
    a.bus.subscribe({ kinds: ['session'], wake: () => undefined, resync: () => undefined });
    await eventually(() => a.bus.listenerState() === 'listening', 10_000);
    const replicas = claimReplicas({
      store: a.store,
      bus: a.bus,
      leaseMs: 15_000,
      timers: systemTimers,
    });

    // A's listener dies and cannot come back: the wake B sends meanwhile is lost.
    await withPgAdmin(async (client) => {
      await client.query(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS false`);
      await client.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE application_name = $1 AND datname = $2`,
        [WAKE_LISTENER_APPLICATION, name],
      );
    });
    await eventually(() => a.bus.listenerState() === 'reconnecting');
    const finished = new AbortController();
    const startedAt = Date.now();
    let endedAt: number | undefined;
    const sleeping = replicas.changed('session-1', SLEEP_MS, finished.signal).then(() => {
      endedAt = Date.now();
    });
    await b.store.transaction(async (tx) => {
      await sql`SELECT 1`.execute(tx.db);
      await b.bus.send(tx, { kind: 'session', sessionId: 'session-1' });
    });
    try {
      await eventually(() => endedAt !== undefined, 10 * POLL_MS);
    } catch {
      // Left to its own bound: say how far it got.
    } finally {
      finished.abort();
      await sleeping;
    }
    expect((endedAt ?? Date.now()) - startedAt).toBeLessThan(10 * POLL_MS);
  });
});
