/**
 * Replicas and session leases on both engines (issue 16): one winner among
 * racing acquires, renewal, expiry, a dead holder, takeover by two racing
 * scanners (each session taken once), a session left with a dead replica's
 * claim and no lease adopted once, and a live replica's ID refused.
 * Several replicas share one store here as they share one database in
 * production; time is a fake clock, so expiry is exact.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ReplicaIdInUseError, startReplica, type Replica } from '../../src/cluster/index.js';
import { silentLogger } from '../../src/observability/index.js';
import {
  appendMessage,
  bundleForPrincipal,
  claimBundle,
  deliveryOwners,
  getReplica,
  heartbeatReplica,
  openStore,
  StorageUnavailableError,
  timestampAtMs,
  type Driver,
  type SessionScope,
  type Store,
} from '../../src/store/index.js';
import { systemTimers } from '../../src/support/timers.js';
import { DRIVERS, freshDatabase, type TestDatabase } from '../support/databases.js';
import { fakeClock, type FakeClock } from '../support/fakes.js';
import { bundleRows, seedResponder, seedSession } from '../support/seed.js';
import { eventually } from '../support/clarification-harness.js';
import { StatementFaults } from '../support/statement-faults.js';

const LEASE_MS = 15_000;
const EXTERNAL = 'external';

describe.each(DRIVERS)('session leases on %s', (driver: Driver) => {
  let database: TestDatabase;
  let store: Store;
  let clock: FakeClock;
  let faults: StatementFaults;
  const replicas: Replica[] = [];

  async function setUp(): Promise<void> {
    database = await freshDatabase(driver, { migrated: true });
    clock = fakeClock();
    faults = new StatementFaults();
    store = await openStore(database.target, { clock, poolSize: 30, plugins: [faults] });
  }

  async function replica(id: string, heartbeatMs = LEASE_MS / 3): Promise<Replica> {
    const started = await startReplica({
      unheldProfile: EXTERNAL,
      store,
      target: database.target,
      id,
      leaseMs: LEASE_MS,
      heartbeatMs,
      timers: systemTimers,
      logger: silentLogger,
      exclusive: false,
    });
    replicas.push(started);
    return started;
  }

  afterEach(async () => {
    for (const started of replicas.splice(0)) await started.stop();
    await store.close();
    await database.dispose();
  });

  it('gives a session to exactly one of 20 replicas acquiring at once', async () => {
    await setUp();
    const { session } = await seedSession(store);
    const racers = await Promise.all(
      Array.from({ length: 20 }, (_, index) => replica(`racer-${index}`)),
    );
    const won = await Promise.all(racers.map((racer) => racer.leases.acquire(session.id)));
    expect(won.filter(Boolean)).toHaveLength(1);
    const winner = racers[won.indexOf(true)];
    expect(await winner?.leases.count()).toBe(1);
    // The holder takes its own lease again; the others still cannot.
    expect(await winner?.leases.acquire(session.id)).toBe(true);
    const loser = racers[won.indexOf(false)];
    expect(await loser?.leases.acquire(session.id)).toBe(false);
  });

  it('keeps a renewed lease past its first expiry and frees an unrenewed one', async () => {
    await setUp();
    const a = await replica('a');
    const b = await replica('b');
    const { session } = await seedSession(store, 'renewed');
    expect(await a.leases.acquire(session.id)).toBe(true);
    clock.advance(LEASE_MS - 1_000);
    expect(await a.leases.renew()).toBe(1);
    clock.advance(2_000);
    expect(await b.leases.acquire(session.id)).toBe(false);
    clock.advance(LEASE_MS);
    expect(await b.leases.acquire(session.id)).toBe(true);
    expect(await a.leases.count()).toBe(0);
    expect(await a.leases.renew()).toBe(0);
  });

  it('frees the leases of a replica that stopped, before they expire', async () => {
    await setUp();
    const a = await replica('a');
    const b = await replica('b');
    const { session } = await seedSession(store, 'stopped');
    expect(await a.leases.acquire(session.id)).toBe(true);
    await a.stop();
    expect(await b.leases.acquire(session.id)).toBe(true);
  });

  it('counts as live the replicas that run and heartbeat within the lease', async () => {
    await setUp();
    const a = await replica('a');
    await replica('b');
    const c = await replica('c');
    expect(await a.leases.liveReplicas()).toEqual(new Set(['a', 'b', 'c']));
    await c.stop();
    clock.advance(LEASE_MS + 1_000);
    const key = (await getReplica(store, 'a'))?.lock_key ?? null;
    expect(await heartbeatReplica(store, 'a', key, clock.timestamp())).toBe(true);
    // b's heartbeat is older than the lease, c stopped: only a is live.
    expect(await a.leases.liveReplicas()).toEqual(new Set(['a']));
  });

  it('releases one lease and, at shutdown, all of a replica’s', async () => {
    await setUp();
    const a = await replica('a');
    const b = await replica('b');
    const first = await seedSession(store, 'first');
    const second = await seedSession(store, 'second');
    expect(await a.leases.acquire(first.session.id)).toBe(true);
    expect(await a.leases.acquire(second.session.id)).toBe(true);
    await a.leases.release(first.session.id);
    expect(await b.leases.acquire(first.session.id)).toBe(true);
    expect(await a.leases.releaseAll()).toBe(1);
    expect(await b.leases.acquire(second.session.id)).toBe(true);
  });

  it('gives back at the next beat a lease whose release the database refused, then runs the queues', async () => {
    await setUp();
    const a = await replica('a', 20);
    const b = await replica('b');
    const { session } = await seedSession(store);
    expect(await a.leases.acquire(session.id)).toBe(true);
    // Its agent exited; the release's DELETE never reached the database.
    faults.refuseNext('delete', 'session_leases');
    await expect(a.leases.release(session.id)).rejects.toThrow(StorageUnavailableError);
    expect(await b.leases.acquire(session.id)).toBe(false);
    const requeued: SessionScope[] = [];
    a.beat(
      () => Promise.resolve(),
      (scope) => {
        requeued.push(scope);
        return Promise.resolve();
      },
    );
    // A start refused at b meanwhile left its message queued: a runs the queues nobody holds.
    await eventually(() => requeued.length > 0, 5_000);
    expect(requeued[0]).toMatchObject({ kind: 'not_held_elsewhere', replicaId: 'a' });
    expect(await a.leases.count()).toBe(0);
    expect(await b.leases.acquire(session.id)).toBe(true);
  });

  // SQLite is one process per data directory: no second process takes the ID there.
  if (driver === 'postgres')
    it('leaves the lease of a new process under the same ID alone once superseded', async () => {
      await setUp();
      const old = await replica('same', 20);
      const other = await seedSession(store, 'other');
      const { session } = await seedSession(store);
      expect(await old.leases.acquire(session.id)).toBe(true);
      // The old process froze past its lease; a new one started under its ID and its session.
      clock.advance(LEASE_MS + 1);
      const fresh = await replica('same');
      const lost: string[] = [];
      fresh.leases.onLost((sessionIds) => {
        lost.push(...sessionIds);
        return Promise.resolve();
      });
      expect(await fresh.leases.acquire(session.id)).toBe(true);
      // The old one wakes: its next beat finds the ID registered anew.
      old.beat(() => Promise.resolve());
      await eventually(() => !old.ownsId(), 5_000);
      // Its agent exits as its server shuts down: its report is dropped, its release writes nothing.
      expect(old.leases.isFenced(session.id)).toBe(true);
      await old.leases.release(session.id);
      expect(await old.leases.releaseUnused()).toBe(0);
      expect(await old.leases.acquire(other.session.id)).toBe(false);
      expect(await fresh.leases.renew()).toBe(1);
      expect(lost).toEqual([]);
      expect(await fresh.leases.count()).toBe(1);
    });

  it('runs work unless a start here took the lease, judged in turn with that start’s acquire', async () => {
    await setUp();
    const a = await replica('a');
    const { session } = await seedSession(store);
    const order: string[] = [];
    const note = (what: string) => () => Promise.resolve(void order.push(what));

    expect(await a.leases.unlessStarted(session.id, note('before any start'))).toBe(true);
    // Asked for while a start's acquire is under way: judged after it, so it does not run.
    const acquired = a.leases.acquire(session.id).then((held) => {
      order.push(`acquired ${held}`);
    });
    expect(await a.leases.unlessStarted(session.id, note('during the start'))).toBe(false);
    await acquired;
    // Asked for first: it runs wholly before the acquire that follows it.
    await a.leases.release(session.id);
    const ran = a.leases.unlessStarted(session.id, note('before the next start'));
    const next = a.leases.acquire(session.id).then((held) => {
      order.push(`acquired again ${held}`);
    });
    expect(await ran).toBe(true);
    await next;
    expect(order).toEqual([
      'before any start',
      'acquired true',
      'before the next start',
      'acquired again true',
    ]);
  });

  it('hands each expired session to one of two scanners taking over at once', async () => {
    await setUp();
    const dead = await replica('dead');
    const b = await replica('b');
    const c = await replica('c');
    const ids: string[] = [];
    for (let index = 0; index < 5; index++) {
      const { session } = await seedSession(store, `held ${index}`);
      expect(await dead.leases.acquire(session.id)).toBe(true);
      ids.push(session.id);
    }
    // Live: nothing to take.
    expect(await b.leases.takeOver()).toEqual([]);
    clock.advance(LEASE_MS + 1);
    const [byB, byC] = await Promise.all([b.leases.takeOver(), c.leases.takeOver()]);
    expect([...byB, ...byC].sort()).toEqual([...ids].sort());
    expect(byB.filter((id) => byC.includes(id))).toEqual([]);
    // Taken once: a later scan finds nothing more.
    expect(await b.leases.takeOver()).toEqual([]);
    expect(await c.leases.takeOver()).toEqual([]);
    expect((await b.leases.count()) + (await c.leases.count())).toBe(5);
  });

  /** A one-question bundle in the session, claimed and its delivery taken by `taker`. */
  async function claimTakenBy(session: Awaited<ReturnType<typeof seedSession>>, taker: string) {
    const pendingId = `pending-${session.session.id}`;
    for (const row of bundleRows(session, pendingId, 1)) await appendMessage(store, row);
    const claimed = await claimBundle(store, {
      pendingId,
      sessionId: session.session.id,
      turnId: session.turn.id,
      status: 'rejected',
      responses: new Map(),
      rejectReason: 'no',
      respondedAt: store.clock.timestamp(),
      respondedBy: await seedResponder(store, session.task.workspace_id),
      deliveryBy: taker,
    });
    expect(claimed).toHaveLength(1);
  }

  it('adopts a session left with a dead replica’s claim and no lease, once, and no other', async () => {
    await setUp();
    const dead = await replica('dead');
    const b = await replica('b');
    const c = await replica('c');
    const orphan = await seedSession(store, 'orphan');
    const external = await seedSession(store, 'external');
    await store.db
      .updateTable('task_sessions')
      .set({ agent_profile: EXTERNAL })
      .where('id', '=', external.session.id)
      .execute();
    const takenByLive = await seedSession(store, 'taken by a live replica');
    const held = await seedSession(store, 'held');
    await claimTakenBy(orphan, 'dead');
    await claimTakenBy(external, 'dead');
    await claimTakenBy(takenByLive, 'c');
    await claimTakenBy(held, 'dead');
    expect(await c.leases.acquire(held.session.id)).toBe(true);
    // Its taker lives: nothing is orphaned yet.
    expect(await b.leases.takeOver()).toEqual([]);

    await dead.stop();
    const [byB, byC] = await Promise.all([b.leases.takeOver(), c.leases.takeOver()]);
    // Not the external agent's (the poll delivers it), nor one a live replica took or holds.
    expect([...byB, ...byC]).toEqual([orphan.session.id]);
    expect(await b.leases.takeOver()).toEqual([]);
    expect(await c.leases.takeOver()).toEqual([]);
  });

  it('recovers taken sessions again at the next beat when their recovery failed, then not again', async () => {
    await setUp();
    const dead = await replica('dead');
    const b = await replica('b', 20);
    const ids: string[] = [];
    for (let index = 0; index < 3; index++) {
      const { session } = await seedSession(store, `unrecovered ${index}`);
      expect(await dead.leases.acquire(session.id)).toBe(true);
      ids.push(session.id);
    }
    clock.advance(LEASE_MS + 1);
    const calls: string[][] = [];
    b.beat((taken) => {
      calls.push([...taken]);
      // The database went away part-way through the first one.
      return calls.length === 1 ? Promise.reject(new Error('connection lost')) : Promise.resolve();
    });
    await eventually(() => Promise.resolve(calls.length >= 2), 5_000);
    // Several beats later: recovered once it succeeded, and not again.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(calls).toEqual([ids.sort(), ids.sort()]);
    expect(await b.leases.count()).toBe(0);
  });

  it('refuses a second start under a live replica’s ID, naming it, and allows it once stopped', async () => {
    await setUp();
    const first = await replica('same-id');
    const second = replica('same-id');
    await expect(second).rejects.toBeInstanceOf(ReplicaIdInUseError);
    await expect(second).rejects.toThrow(/replica same-id is already running on this database/);
    await first.stop();
    replicas.splice(replicas.indexOf(first), 1);
    const again = await replica('same-id');
    expect(again.id).toBe('same-id');
  });

  it('forgets replicas silent for a week that hold no lease, at the next start', async () => {
    await setUp();
    const gone = await replica('gone');
    const holding = await replica('holding');
    const { session } = await seedSession(store, 'kept');
    expect(await holding.leases.acquire(session.id)).toBe(true);
    await gone.stop();
    clock.advance(8 * 24 * 60 * 60 * 1000);
    await replica('next');
    const ids = (await store.db.selectFrom('replicas').select('id').orderBy('id').execute()).map(
      (row) => row.id,
    );
    expect(ids).toEqual(['holding', 'next']);
  });
  it('judges delivery owners in the identity read exactly as deliveryOwners does', async () => {
    await setUp();
    const holder = await replica('holder');
    const asker = await replica('asker');
    const seeded = await seedSession(store, 'owned');
    expect(await holder.leases.acquire(seeded.session.id)).toBe(true);
    for (const row of bundleRows(seeded, 'owned-bundle', 2)) {
      await appendMessage(store, { ...row, metadata: { ...row.metadata, asked_on: 'asker' } });
    }
    const agent = { kind: 'agent', userId: 'someone', sessionId: seeded.session.id } as const;
    const judged = async () => {
      const terms = {
        now: timestampAtMs(clock.nowMs()),
        heartbeatAfter: timestampAtMs(clock.nowMs() - LEASE_MS),
      };
      const read = await bundleForPrincipal(store, agent, 'owned-bundle', terms);
      const alone = await deliveryOwners(store, {
        ...terms,
        sessionId: seeded.session.id,
        askedOn: 'asker',
      });
      expect(read.owners).toEqual(alone);
      return read.owners;
    };

    expect(await judged()).toEqual({ holder: 'holder', askedOnLive: true });
    await asker.stop();
    expect(await judged()).toEqual({ holder: 'holder', askedOnLive: false });
    await holder.stop();
    expect(await judged()).toEqual({ holder: undefined, askedOnLive: false });
    // Without the terms the read judges nothing; an unknown bundle has no owners.
    expect((await bundleForPrincipal(store, agent, 'owned-bundle')).owners).toBeUndefined();
    const unknown = await bundleForPrincipal(store, agent, 'unknown', {
      now: timestampAtMs(clock.nowMs()),
      heartbeatAfter: timestampAtMs(clock.nowMs() - LEASE_MS),
    });
    expect(unknown.owners).toBeUndefined();
  });
});
