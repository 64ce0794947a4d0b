/**
 * The local validity rule of fencing (issue 16), on both engines with a fake
 * clock for both the rows' time and the replica's monotonic clock. A replica
 * trusts its leases from memory until its last renew's start plus the lease,
 * less the margin: within that an action proceeds without a statement; past
 * it the action renews first; a session another replica took meanwhile is
 * fenced (once) and stays fenced until a start here takes it again.
 */
import type { KyselyPlugin } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { startReplica, type Replica } from '../../src/cluster/index.js';
import { eventually } from '../support/clarification-harness.js';
import { silentLogger } from '../../src/observability/index.js';
import { openStore, type Driver, type Store } from '../../src/store/index.js';
import { systemTimers } from '../../src/support/timers.js';
import { LEASE_FENCE_MARGIN_MS } from '../../src/tunables.js';
import { DRIVERS, freshDatabase, type TestDatabase } from '../support/databases.js';
import { fakeClock, type FakeClock } from '../support/fakes.js';
import { seedSession } from '../support/seed.js';

const LEASE_MS = 15_000;
/** How long after a renew began its leases are trusted from memory. */
const VALID_MS = LEASE_MS - LEASE_FENCE_MARGIN_MS;
/** How long past validity, with no renew getting through, before the leases are fenced. */
const GRACE_MS = LEASE_MS / 3;

describe.each(DRIVERS)(
  'fencing a replica that did not run past its lease, on %s',
  (driver: Driver) => {
    let database: TestDatabase;
    let store: Store;
    let clock: FakeClock;
    const replicas: Replica[] = [];

    async function setUp(): Promise<void> {
      database = await freshDatabase(driver, { migrated: true });
      clock = fakeClock();
      store = await openStore(database.target, { clock });
    }

    async function replica(
      id: string,
      through: Store = store,
      heartbeatMs = LEASE_MS / 3,
      exclusive = false,
    ) {
      const started = await startReplica({
        store: through,
        target: database.target,
        id,
        leaseMs: LEASE_MS,
        heartbeatMs,
        timers: systemTimers,
        logger: silentLogger,
        exclusive,
        monotonicMs: () => clock.nowMs(),
      });
      replicas.push(started);
      return started;
    }

    async function expiresAt(sessionId: string): Promise<string | undefined> {
      const row = await store.db
        .selectFrom('session_leases')
        .select(['expires_at', 'replica_id'])
        .where('session_id', '=', sessionId)
        .executeTakeFirst();
      return row ? `${row.replica_id}@${row.expires_at}` : undefined;
    }

    afterEach(async () => {
      for (const started of replicas.splice(0)) await started.stop();
      await store.close();
      await database.dispose();
    });

    it('proceeds from memory while valid, renews first once lapsed, and fences a lost session once', async () => {
      await setUp();
      const a = await replica('a');
      const b = await replica('b');
      const fenced: string[][] = [];
      a.leases.onLost((sessionIds) => {
        fenced.push([...sessionIds]);
        return Promise.resolve();
      });
      const { session } = await seedSession(store, 'held');
      expect(await a.leases.acquire(session.id)).toBe(true);
      expect(await a.leases.renew()).toBe(1);

      // Kept, still valid: no statement (the lease's row is as the renew left it).
      const renewed = await expiresAt(session.id);
      clock.advance(VALID_MS - 1);
      expect(await a.leases.confirm(session.id)).toBe(true);
      expect(await expiresAt(session.id)).toBe(renewed);

      // Lapsed but kept: one renew first, then proceed.
      clock.advance(1);
      expect(await a.leases.confirm(session.id)).toBe(true);
      expect(await expiresAt(session.id)).not.toBe(renewed);
      expect(fenced).toEqual([]);

      // A did not run past its lease; B took the session over.
      clock.advance(LEASE_MS + 1);
      expect(await b.leases.takeOver()).toEqual([session.id]);
      expect(await a.leases.confirm(session.id)).toBe(false);
      expect(fenced).toEqual([[session.id]]);
      expect(a.leases.isFenced(session.id)).toBe(true);
      // Once: a later action or beat hears the same and fences nothing again.
      clock.advance(LEASE_MS);
      expect(await a.leases.confirm(session.id)).toBe(false);
      expect(await a.leases.renew()).toBe(0);
      expect(fenced).toEqual([[session.id]]);
      expect(await expiresAt(session.id)).toMatch(/^b@/);

      // B lets go; a start on A takes it again, and it is A's once more.
      await b.leases.release(session.id);
      expect(await a.leases.acquire(session.id)).toBe(true);
      expect(a.leases.isFenced(session.id)).toBe(false);
      expect(await a.leases.confirm(session.id)).toBe(true);
    });

    it('fences on a beat too: the renew compares what it still holds with what it held', async () => {
      await setUp();
      const a = await replica('a');
      const b = await replica('b');
      const fenced = fencedOn(a);
      const lost = (await seedSession(store, 'lost')).session.id;
      const kept = (await seedSession(store, 'kept')).session.id;
      expect(await a.leases.acquire(lost)).toBe(true);
      clock.advance(LEASE_MS + 1);
      expect(await b.leases.takeOver()).toEqual([lost]);
      expect(await a.leases.acquire(kept)).toBe(true);
      expect(await a.leases.renew()).toBe(1);
      expect(fenced).toEqual([lost]);
      expect(a.leases.isFenced(kept)).toBe(false);
      // A session A never held is no business of fencing: the caller's own path decides.
      expect(await a.leases.confirm('never-held')).toBe(true);
    });

    it('a start racing the release of unused leases and a renew keeps its lease, unfenced', async () => {
      await setUp();
      const dead = await replica('dead');
      const b = await replica('b');
      const fenced = fencedOn(b);
      const sessions: string[] = [];
      for (let index = 0; index < 20; index++) {
        const { session } = await seedSession(store, `taken-${index}`);
        expect(await dead.leases.acquire(session.id)).toBe(true);
        sessions.push(session.id);
      }
      clock.advance(LEASE_MS + 1);
      expect(await b.leases.takeOver()).toEqual([...sessions].sort());
      // Recovery starts the agents of some taken sessions while the takeover lets the others go.
      const starting = sessions.filter((_, index) => index % 2 === 0);
      const [acquired] = await Promise.all([
        Promise.all(
          starting.map(async (sessionId, index) => {
            await new Promise((resolve) => setTimeout(resolve, index * 3));
            return b.leases.acquire(sessionId);
          }),
        ),
        b.leases.releaseUnused(),
        (async () => {
          for (let renews = 0; renews < 30; renews++) {
            await b.leases.renew();
          }
        })(),
      ]);
      expect(acquired.every(Boolean)).toBe(true);
      await b.leases.renew();
      expect(fenced).toEqual([]);
      for (const sessionId of starting) {
        expect(b.leases.isFenced(sessionId)).toBe(false);
        expect(await expiresAt(sessionId)).toMatch(/^b@/);
      }
      expect(await b.leases.count()).toBe(starting.length);
    });

    it('waits for the fencing to end before an action proceeds', async () => {
      await setUp();
      const a = await replica('a');
      const b = await replica('b');
      let release: () => void = () => undefined;
      const order: string[] = [];
      a.leases.onLost(
        () =>
          new Promise<void>((resolve) => {
            release = () => {
              order.push('fenced');
              resolve();
            };
          }),
      );
      const { session } = await seedSession(store, 'slow');
      expect(await a.leases.acquire(session.id)).toBe(true);
      clock.advance(LEASE_MS + 1);
      expect(await b.leases.takeOver()).toEqual([session.id]);
      const beat = a.leases.renew();
      const action = a.leases.confirm(session.id).then((held) => {
        order.push(`action:${String(held)}`);
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(order).toEqual([]);
      release();
      await Promise.all([beat, action]);
      expect(order).toEqual(['fenced', 'action:false']);
    });

    it('fences what it cannot renew once past validity and a grace, once and writing nothing; a session taken meanwhile stays fenced', async () => {
      await setUp();
      const line = cuttable(store);
      const a = await replica('a', line.store);
      const b = await replica('b');
      const fenced = fencedOn(a);
      const kept = (await seedSession(store, 'kept')).session.id;
      const taken = (await seedSession(store, 'taken')).session.id;
      expect(await a.leases.acquire(kept)).toBe(true);
      expect(await a.leases.acquire(taken)).toBe(true);
      expect(await a.leases.renew()).toBe(2);
      const rows = [await expiresAt(kept), await expiresAt(taken)];

      // The database is out of A's reach: within validity, and for a grace past it, nothing happens.
      line.cut.down = true;
      await expect(a.leases.renew()).rejects.toThrow('connection lost');
      clock.advance(VALID_MS - 1);
      expect(await a.leases.checkValidity(GRACE_MS)).toEqual([]);
      clock.advance(1);
      expect(await a.leases.checkValidity(GRACE_MS)).toEqual([]);
      clock.advance(GRACE_MS - 1);
      expect(await a.leases.checkValidity(GRACE_MS)).toEqual([]);
      expect(fenced).toEqual([]);
      clock.advance(1);
      expect((await a.leases.checkValidity(GRACE_MS)).sort()).toEqual([kept, taken].sort());
      expect(fenced.sort()).toEqual([kept, taken].sort());
      expect(a.leases.isFenced(kept)).toBe(true);
      // Once, and without a write: the rows are as the last renew left them.
      expect(await a.leases.checkValidity(GRACE_MS)).toEqual([]);
      expect([await expiresAt(kept), await expiresAt(taken)]).toEqual(rows);

      // Meanwhile B takes both over and lets one go; back in reach, a start on A takes that one.
      clock.advance(LEASE_MS);
      expect((await b.leases.takeOver()).sort()).toEqual([kept, taken].sort());
      await b.leases.release(kept);
      line.cut.down = false;
      expect(await a.leases.acquire(kept)).toBe(true);
      expect(await a.leases.renew()).toBe(1);
      // Neither is handed back for recovery: one a start took, the other is B's.
      expect(a.leases.takeRegained()).toEqual([]);
      expect(a.leases.isFenced(kept)).toBe(false);
      expect(a.leases.isFenced(taken)).toBe(true);
      expect(await expiresAt(taken)).toMatch(/^b@/);
    });

    it('hands back for recovery the sessions it fenced unconfirmed that a renew finds still its own', async () => {
      await setUp();
      const line = cuttable(store);
      const a = await replica('a', line.store);
      const fenced = fencedOn(a);
      const { session } = await seedSession(store, 'outage');
      expect(await a.leases.acquire(session.id)).toBe(true);
      expect(await a.leases.renew()).toBe(1);
      line.cut.down = true;
      clock.advance(VALID_MS);
      expect(await a.leases.checkValidity(GRACE_MS)).toEqual([]);
      clock.advance(GRACE_MS);
      expect(await a.leases.checkValidity(GRACE_MS)).toEqual([session.id]);
      expect(fenced).toEqual([session.id]);
      // The outage was everyone's: nobody took the session, and its row is still A's.
      line.cut.down = false;
      expect(await a.leases.renew()).toBe(1);
      expect(a.leases.isFenced(session.id)).toBe(false);
      expect(a.leases.takeRegained()).toEqual([session.id]);
      expect(a.leases.takeRegained()).toEqual([]);
      expect(await expiresAt(session.id)).toMatch(/^a@/);
    });

    // PostgreSQL only, and not even listed on SQLite, where one connection serves both
    // replicas: B's takeover would wait behind A's held reply (and several servers share only a
    // PostgreSQL anyway).
    if (driver === 'postgres')
      it('never hands back for recovery a session fenced unconfirmed on a renew whose reply came past its validity', async () => {
        await setUp();
        const line = cuttable(store);
        const a = await replica('a', line.store);
        const b = await replica('b');
        const fenced = fencedOn(a);
        const { session } = await seedSession(store, 'late-reply');
        expect(await a.leases.acquire(session.id)).toBe(true);
        expect(await a.leases.renew()).toBe(1);

        // A's renew runs on the database, its reply held back past validity and a grace: fenced.
        line.cut.hang = true;
        const late = a.leases.renew();
        await eventually(() => Promise.resolve(line.held() > 0), 5_000);
        clock.advance(VALID_MS);
        expect(await a.leases.checkValidity(GRACE_MS)).toEqual([]);
        clock.advance(GRACE_MS);
        expect(await a.leases.checkValidity(GRACE_MS)).toEqual([session.id]);

        // The lease that renew wrote expires; B takes the session over before the reply arrives.
        clock.advance(LEASE_MS);
        expect(await b.leases.takeOver()).toEqual([session.id]);
        line.cut.hang = false;
        line.release();
        expect(await late).toBe(1);

        // The reply still lists the session, but says nothing of now: A leaves it fenced, then
        // its next renew finds it B's.
        expect(a.leases.takeRegained()).toEqual([]);
        expect(a.leases.isFenced(session.id)).toBe(true);
        expect(await a.leases.renew()).toBe(0);
        expect(a.leases.takeRegained()).toEqual([]);
        expect(a.leases.isFenced(session.id)).toBe(true);
        expect(fenced).toEqual([session.id]);
        expect(await expiresAt(session.id)).toMatch(/^b@/);
      });

    // PostgreSQL only, as above: B's takeover must not wait behind A's held replies.
    if (driver === 'postgres')
      it('an action after two renews whose replies came past their validity does not go on as holder', async () => {
        await setUp();
        const line = cuttable(store);
        const a = await replica('a', line.store);
        const b = await replica('b');
        const fenced = fencedOn(a);
        const { session } = await seedSession(store, 'late-replies');
        expect(await a.leases.acquire(session.id)).toBe(true);
        expect(await a.leases.renew()).toBe(1);

        // A beat's renew runs on the database; its reply is held back while A is paused.
        line.cut.hang = true;
        const beat = a.leases.renew();
        await eventually(() => Promise.resolve(line.held() === 1), 5_000);
        clock.advance(VALID_MS);
        // An action confirms: it waits for that renew, whose reply comes past its validity…
        const action = a.leases.confirm(session.id);
        line.release();
        expect(await beat).toBe(1);
        // …then renews once more: that statement runs too, and its reply is held back again.
        await eventually(() => Promise.resolve(line.held() === 1), 5_000);
        clock.advance(LEASE_MS + 1);
        // The lease the second renew wrote expires, and B takes the session before the reply.
        expect(await b.leases.takeOver()).toEqual([session.id]);
        line.cut.hang = false;
        line.release();

        // Both replies list the session, but neither says anything of now: not the holder.
        expect(await action).toBe(false);
        expect(fenced).toEqual([session.id]);
        expect(a.leases.isFenced(session.id)).toBe(true);
        expect(await a.leases.renew()).toBe(0);
        expect(a.leases.takeRegained()).toEqual([]);
        expect(await expiresAt(session.id)).toMatch(/^b@/);
      });

    it('fences nothing when a renew gets through within the grace (a pause that ended)', async () => {
      await setUp();
      const a = await replica('a');
      const fenced = fencedOn(a);
      const { session } = await seedSession(store, 'paused');
      expect(await a.leases.acquire(session.id)).toBe(true);
      expect(await a.leases.renew()).toBe(1);
      clock.advance(LEASE_MS);
      expect(await a.leases.checkValidity(GRACE_MS)).toEqual([]);
      expect(await a.leases.renew()).toBe(1);
      clock.advance(GRACE_MS);
      expect(await a.leases.checkValidity(GRACE_MS)).toEqual([]);
      expect(fenced).toEqual([]);
      expect(a.leases.isFenced(session.id)).toBe(false);
    });

    it('counts the grace from a lapse seen since the last renew, never from one before it', async () => {
      await setUp();
      const a = await replica('a');
      const fenced = fencedOn(a);
      const { session } = await seedSession(store, 'fresh');
      // Just taken, not yet renewed: a beat sees no validity yet.
      expect(await a.leases.acquire(session.id)).toBe(true);
      expect(await a.leases.checkValidity(GRACE_MS)).toEqual([]);
      expect(await a.leases.renew()).toBe(1);
      // Then a pause past validity and the grace: the first beat after it only starts the grace.
      clock.advance(VALID_MS + GRACE_MS);
      expect(await a.leases.checkValidity(GRACE_MS)).toEqual([]);
      expect(fenced).toEqual([]);
    });

    it('beats fence unconfirmed sessions while every statement fails, and recover them once it answers', async () => {
      await setUp();
      const line = cuttable(store);
      const a = await replica('a', line.store, 20);
      const fenced = fencedOn(a);
      const { session } = await seedSession(store, 'beating');
      expect(await a.leases.acquire(session.id)).toBe(true);
      expect(await a.leases.renew()).toBe(1);
      const recovered: string[][] = [];
      a.beat((sessionIds) => {
        recovered.push([...sessionIds]);
        return Promise.resolve();
      });
      line.cut.down = true;
      clock.advance(LEASE_MS);
      // A few beats find the leases past validity; a beat's grace later, one fences them.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(fenced).toEqual([]);
      clock.advance(20);
      await eventually(() => Promise.resolve(fenced.length > 0), 5_000);
      expect(fenced).toEqual([session.id]);
      expect(recovered).toEqual([]);
      line.cut.down = false;
      await eventually(() => Promise.resolve(recovered.length > 0), 5_000);
      expect(recovered).toEqual([[session.id]]);
      expect(fenced).toEqual([session.id]);
    });

    it('alone on the database (exclusive), beats never fence: no other server can take over', async () => {
      await setUp();
      const line = cuttable(store);
      const a = await replica('a', line.store, 20, true);
      const fenced = fencedOn(a);
      const { session } = await seedSession(store, 'alone');
      expect(await a.leases.acquire(session.id)).toBe(true);
      expect(await a.leases.renew()).toBe(1);
      a.beat(() => Promise.resolve());
      line.cut.down = true;
      clock.advance(LEASE_MS);
      await new Promise((resolve) => setTimeout(resolve, 100));
      clock.advance(LEASE_MS);
      await new Promise((resolve) => setTimeout(resolve, 100));
      line.cut.down = false;
      expect(fenced).toEqual([]);
      expect(a.leases.isFenced(session.id)).toBe(false);
    });

    it('alone on the database (exclusive), an action after late renews goes on as holder', async () => {
      await setUp();
      const line = cuttable(store);
      const a = await replica('a', line.store, LEASE_MS / 3, true);
      const fenced = fencedOn(a);
      const { session } = await seedSession(store, 'alone-late');
      expect(await a.leases.acquire(session.id)).toBe(true);
      expect(await a.leases.renew()).toBe(1);
      line.cut.hang = true;
      clock.advance(VALID_MS);
      const action = a.leases.confirm(session.id);
      for (let renews = 0; renews < 2; renews++) {
        await eventually(() => Promise.resolve(line.held() === 1), 5_000);
        clock.advance(LEASE_MS);
        line.release();
      }
      line.cut.hang = false;
      expect(await action).toBe(true);
      expect(fenced).toEqual([]);
    });

    it('beats fence unconfirmed sessions while a statement hangs, though the beat waiting on it never ends', async () => {
      await setUp();
      const line = cuttable(store);
      const a = await replica('a', line.store, 20);
      const fenced = fencedOn(a);
      const { session } = await seedSession(store, 'hanging');
      expect(await a.leases.acquire(session.id)).toBe(true);
      expect(await a.leases.renew()).toBe(1);
      a.beat(() => Promise.resolve());
      line.cut.hang = true;
      try {
        await eventually(() => Promise.resolve(line.held() > 0), 5_000);
        clock.advance(LEASE_MS);
        await new Promise((resolve) => setTimeout(resolve, 100));
        clock.advance(20);
        await eventually(() => Promise.resolve(fenced.length > 0), 5_000);
        expect(fenced).toEqual([session.id]);
      } finally {
        // The replica's stop waits for the beat still waiting on its statement.
        line.cut.hang = false;
        line.release();
      }
    });
  },
);

/** The sessions `replica` fences from now on, in order; its fencing itself does nothing. */
function fencedOn(replica: Replica): string[] {
  const fenced: string[] = [];
  replica.leases.onLost((sessionIds) => {
    fenced.push(...sessionIds);
    return Promise.resolve();
  });
  return fenced;
}

/**
 * The store through a connection that can be cut: every statement fails
 * while `down`; while `hang`, each runs but its answer is held back until
 * `release`.
 */
function cuttable(store: Store) {
  const cut = { down: false, hang: false };
  const waiting: (() => void)[] = [];
  const plugin: KyselyPlugin = {
    transformQuery(args) {
      if (cut.down) throw new Error('connection lost');
      return args.node;
    },
    async transformResult(args) {
      if (cut.hang) await new Promise<void>((resolve) => waiting.push(resolve));
      return args.result;
    },
  };
  return {
    store: { ...store, db: store.db.withPlugin(plugin) } satisfies Store,
    cut,
    held: () => waiting.length,
    release: () => {
      for (const resolve of waiting.splice(0)) resolve();
    },
  };
}
