/**
 * A replica whose lock connection ends while it runs (issue 16), on a real
 * PostgreSQL: its lock's backend is terminated as a PostgreSQL restart or an
 * operator would. It takes its lock again on a new connection within the
 * retry bound and reads live to the others again. While it cannot (the key
 * held elsewhere), it reads dead: it takes over nothing, starts no agent,
 * fences the sessions the others took, and a same-ID start is accepted; once
 * that process holds the ID, this one learns so, stops serving, and writes
 * nothing under the ID. Once it holds its lock again it runs the queues a
 * start refused meanwhile left (those no other live replica holds), again at
 * the next beat if that failed, and only then.
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ReplicaSupersededError,
  startReplica,
  type Replica,
  type ReplicaSupersededError as Superseded,
} from '../../src/cluster/index.js';
import { silentLogger } from '../../src/observability/index.js';
import { REPLICA_LOCK_CLASS } from '../../src/store/dialect.js';
import {
  acquireLease,
  getReplica,
  openStore,
  registerReplica,
  timestampAtMs,
  type SessionScope,
  type Store,
} from '../../src/store/index.js';
import { systemTimers, type RepeatingTimers } from '../../src/support/timers.js';
import { REPLICA_LOCK_RETRY_MAX_MS, REPLICA_LOCK_RETRY_MIN_MS } from '../../src/tunables.js';
import { eventually } from '../support/clarification-harness.js';
import { freshPostgres } from '../support/replicas.js';
import type { TestDatabase } from '../support/databases.js';
import { takeReplicaLock } from '../support/replica-lock.js';
import { seedSession } from '../support/seed.js';

const LEASE_MS = 15_000;
const HEARTBEAT_MS = 100;
/** The first retry, its statements, and slack for a loaded machine. */
const RETAKE_BOUND_MS = REPLICA_LOCK_RETRY_MIN_MS + 2_000;

describe('a replica that lost its lock connection', () => {
  let database: TestDatabase & { target: { driver: 'postgres'; url: string } };
  let store: Store;
  let admin: pg.Client;
  /** A connection holding a replica's lock key in its place (`takeReplicaLock`). */
  let holder: pg.Client | undefined;
  const replicas: Replica[] = [];

  async function setUp(): Promise<void> {
    database = await freshPostgres();
    store = await openStore(database.target, { poolSize: 10 });
    admin = new pg.Client({ connectionString: database.target.url });
    await admin.connect();
  }

  async function replica(
    id: string,
    options: { onSuperseded?: (error: Superseded) => void; timers?: RepeatingTimers } = {},
  ): Promise<Replica> {
    const { onSuperseded, timers = systemTimers } = options;
    const started = await startReplica({
      store,
      target: database.target,
      id,
      leaseMs: LEASE_MS,
      heartbeatMs: HEARTBEAT_MS,
      timers,
      logger: silentLogger,
      exclusive: false,
      ...(onSuperseded ? { onSuperseded } : {}),
    });
    replicas.push(started);
    return started;
  }

  /** The backend holding the replica's lock, as `pg_locks` says now. */
  async function lockBackend(id: string): Promise<number | undefined> {
    const key = (await getReplica(store, id))?.lock_key;
    const { rows } = await admin.query<{ pid: number }>(
      `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 2
         AND classid = $1::bigint::oid AND objid = $2::bigint::oid`,
      [REPLICA_LOCK_CLASS, key],
    );
    return rows[0]?.pid;
  }

  async function terminateLock(id: string): Promise<number> {
    const pid = await lockBackend(id);
    if (pid === undefined) throw new Error(`no lock backend for ${id}`);
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    return pid;
  }

  afterEach(async () => {
    await holder?.end().catch(() => undefined);
    holder = undefined;
    for (const started of replicas.splice(0)) await started.stop().catch(() => undefined);
    await admin.end();
    await store.close();
    await database.dispose();
  });

  it('takes its lock again within the bound, and the others read it live again', async () => {
    await setUp();
    const a = await replica('a');
    const b = await replica('b');
    a.beat(() => Promise.resolve());
    const { session } = await seedSession(store, 'kept');
    expect(await a.leases.acquire(session.id)).toBe(true);

    const before = await terminateLock('a');
    const lostAt = Date.now();
    await eventually(async () => {
      const pid = await lockBackend('a');
      return pid !== undefined && pid !== before;
    }, RETAKE_BOUND_MS);
    expect(Date.now() - lostAt).toBeLessThan(RETAKE_BOUND_MS);
    await eventually(() => a.lockState() === 'held', RETAKE_BOUND_MS);
    expect(await b.leases.liveReplicas()).toEqual(new Set(['a', 'b']));
    // Live again, its session stays its own: b has nothing to take over.
    expect(await b.leases.takeOver()).toEqual([]);
    expect(await a.leases.confirm(session.id)).toBe(true);
    expect(a.leases.isFenced(session.id)).toBe(false);

    // A second loss is taken again too. The terminated backend may linger a moment after
    // the call returns, still named as the lock's holder: only a new one is the lock retaken.
    const second = await terminateLock('a');
    await eventually(async () => {
      const pid = await lockBackend('a');
      return pid !== undefined && pid !== second;
    }, RETAKE_BOUND_MS);
    await eventually(() => a.lockState() === 'held', RETAKE_BOUND_MS);
    expect(await b.leases.liveReplicas()).toEqual(new Set(['a', 'b']));
  });

  it('acts as no live replica while lock-less, and stops once a same-ID start took the ID', async () => {
    await setUp();
    const superseded: Superseded[] = [];
    // a's one-shot timers (its lock retry, a start's wait for the lock) fire when the test says.
    const due: (() => void)[] = [];
    const held: RepeatingTimers = {
      every: (ms, callback) => systemTimers.every(ms, callback),
      setTimeout: (callback) => {
        due.push(callback);
        return { cancel: () => undefined };
      },
    };
    const a = await replica('a', { onSuperseded: (error) => superseded.push(error), timers: held });
    const b = await replica('b');
    const fenced: string[] = [];
    a.leases.onLost((sessionIds) => Promise.resolve(void fenced.push(...sessionIds)));
    a.beat(() => Promise.resolve());
    const mine = await seedSession(store, 'held by a');
    expect(await a.leases.acquire(mine.session.id)).toBe(true);
    await terminateLock('a');
    await eventually(async () => !(await b.leases.liveReplicas()).has('a'), RETAKE_BOUND_MS);
    // A dead replica's session, which a live replica would take over at its next beat. Made
    // only now: a beat of a with its lock would take it over (and, unstarted, release it).
    const orphan = await seedSession(store, 'orphaned');
    const nowMs = store.clock.nowMs();
    const terms = { now: timestampAtMs(nowMs), expiresAt: timestampAtMs(nowMs + LEASE_MS) };
    expect(
      await registerReplica(store, {
        id: 'dead',
        lockKey: 7,
        now: terms.now,
        heartbeatAfter: timestampAtMs(nowMs - LEASE_MS),
      }),
    ).toEqual({ ok: true });
    expect(await acquireLease(store, orphan.session.id, { replicaId: 'dead', ...terms })).toBe(
      true,
    );
    // An agent start waits for the lock, and is refused when it does not come back in time.
    const fresh = await seedSession(store, 'started while lock-less');
    const start = a.leases.acquire(fresh.session.id);

    // Several beats of a: it takes over nothing while the others read it dead.
    await new Promise((resolve) => setTimeout(resolve, 5 * HEARTBEAT_MS));
    expect(await b.leases.liveReplicas()).toEqual(new Set(['b']));
    expect(await leaseHolder(orphan.session.id)).toBe('dead');
    expect(a.lockState()).toBe('retaking');
    // b takes a's session (and the dead one's); a's next renew fences what it lost.
    expect(await b.leases.takeOver()).toEqual([mine.session.id, orphan.session.id].sort());
    await eventually(() => fenced.includes(mine.session.id), RETAKE_BOUND_MS);
    expect(await a.leases.confirm(mine.session.id)).toBe(false);
    expect(await leaseHolder(mine.session.id)).toBe('b');

    // A same-ID start is accepted now: a reads dead. It holds a session of its own.
    const duplicate = await replica('a');
    const its = await seedSession(store, 'held by the duplicate');
    expect(await duplicate.leases.acquire(its.session.id)).toBe(true);
    // a tries again now (and the start's wait for the lock runs out).
    for (const fire of due.splice(0)) fire();

    await eventually(() => superseded.length === 1, RETAKE_BOUND_MS);
    expect(superseded[0]).toBeInstanceOf(ReplicaSupersededError);
    expect(superseded[0]?.message).toMatch(/another process registered replica ID a/);
    expect(a.ownsId()).toBe(false);
    expect(await start).toBe(false);
    expect(await leaseHolder(fresh.session.id)).toBeUndefined();
    // Its stop frees none of the duplicate's leases and leaves its row running.
    await a.stop();
    expect(await leaseHolder(its.session.id)).toBe('a');
    expect((await getReplica(store, 'a'))?.stopped_at).toBeNull();
    expect(await b.leases.liveReplicas()).toEqual(new Set(['a', 'b']));
  });

  it('runs the queues left while lock-less once it holds its lock again, again if that failed', async () => {
    await setUp();
    const a = await replica('a');
    const requeued: SessionScope[] = [];
    a.beat(
      () => Promise.resolve(),
      (scope) => {
        requeued.push(scope);
        // The first run fails (the database went away mid-way): the next beat runs it again.
        return requeued.length === 1 ? Promise.reject(new Error('gone')) : Promise.resolve();
      },
    );
    const key = (await getReplica(store, 'a'))?.lock_key;
    if (key === undefined || key === null) throw new Error('replica not registered');
    holder = await takeReplicaLock(database.target.url, key);
    await eventually(() => a.lockState() === 'retaking', RETAKE_BOUND_MS);
    // Its beats while lock-less run no queue: a start here would be refused.
    await new Promise((resolve) => setTimeout(resolve, 5 * HEARTBEAT_MS));
    expect(requeued).toEqual([]);

    await holder.end();
    holder = undefined;
    await eventually(() => requeued.length === 2, REPLICA_LOCK_RETRY_MAX_MS + 2_000);
    expect(a.lockState()).toBe('held');
    // Done once it succeeded: later beats run nothing more.
    await new Promise((resolve) => setTimeout(resolve, 5 * HEARTBEAT_MS));
    expect(requeued).toHaveLength(2);
    for (const scope of requeued) {
      expect(scope).toMatchObject({ kind: 'not_held_elsewhere', replicaId: 'a' });
    }
  });

  async function leaseHolder(sessionId: string): Promise<string | undefined> {
    const row = await store.db
      .selectFrom('session_leases')
      .select('replica_id')
      .where('session_id', '=', sessionId)
      .executeTakeFirst();
    return row?.replica_id;
  }
});
