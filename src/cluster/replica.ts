/**
 * This server as one replica of several on the database (issue 16): it
 * registers under its ID (a live replica of the same ID refuses the start),
 * heartbeats every `heartbeatMs`, renews its leases (fencing the sessions it
 * lost while it did not run, `leases.ts`) and takes over those of
 * replicas that stopped heartbeating or died, handing exactly the sessions it
 * took to `recover` (start-up recovery for those sessions, injected by the
 * composition root). A recovery that failed (the database went away mid-way)
 * is tried again at each beat until it succeeds: the leases are this
 * replica's now, so no other replica would ever recover those sessions.
 * Apart from the beat's own work, which waits on the database, each beat also
 * checks that the leases were renewed within their validity, and fences them
 * if not (`SessionLeases.checkValidity`); those a later renew finds still
 * ours are recovered like taken ones. A clean stop releases its leases and
 * marks it stopped in one commit, which wakes the others (`released`): the
 * queues of those sessions run there (`released-queues.ts`).
 *
 * Its lock (`store/replica-lock.ts`) is what makes it live to the others. A
 * lock connection that ends (a PostgreSQL restart, a terminated backend) is
 * taken again on a new connection, after a backoff doubling from
 * `REPLICA_LOCK_RETRY_MIN_MS` to `REPLICA_LOCK_RETRY_MAX_MS`, for as long as
 * it runs. Meanwhile the others read it dead and may take its sessions: it
 * heartbeats and renews (fencing the sessions taken, `leases.ts`), trusts no
 * lease from memory, takes over nothing and recovers nothing, and a start
 * waits for the lock (`SessionLeases.suspend`). `/healthz` says so. A start
 * refused meanwhile leaves its message queued with nobody to run it, so once
 * the lock is back the replica runs the queues no other live replica holds
 * (`RequeueSessions`), at once and again at each beat until that succeeds; so
 * it does once a beat gave back a lease whose release the database had
 * refused (`SessionLeases.releaseUnreleased`): starts elsewhere were refused
 * while this replica kept it with no agent running. Should
 * its ID be registered by another process meanwhile (a new lock key on the
 * row, or the row marked stopped), two processes would serve one ID, which
 * the lock exists to prevent: this one stops acting as that replica, writes
 * nothing more under the ID, and reports it through `onSuperseded` so the
 * server shuts down.
 */
import type { Logger } from '../observability/index.js';
import {
  heartbeatReplica,
  holdReplicaLock,
  markReplicaStopped,
  pruneReplicas,
  registerReplica,
  replicaRegisteredAs,
  retireOtherReplicas,
  timestampAtMs,
  type DatabaseTarget,
  type ReplicaLock,
  type RepoContext,
  type SessionScope,
  type Store,
  idempotentOnNewConnection,
} from '../store/index.js';
import type { RepeatingTimers } from '../support/index.js';
import {
  REPLICA_LOCK_RETRY_MAX_MS,
  REPLICA_LOCK_RETRY_MIN_MS,
  REPLICA_ROW_RETENTION_MS,
} from '../tunables.js';
import { SessionLeases } from './leases.js';

export class ReplicaIdInUseError extends Error {
  readonly code = 'replica_id_in_use';
  constructor(message: string) {
    super(message);
    this.name = 'ReplicaIdInUseError';
  }
}

/** Another process registered this replica's ID while this one ran: this one must stop serving. */
export class ReplicaSupersededError extends Error {
  readonly code = 'replica_superseded';
  constructor(message: string) {
    super(message);
    this.name = 'ReplicaSupersededError';
  }
}

/** Whether this replica holds its lock: `held`, or `retaking` it after its connection ended. */
export type ReplicaLockState = 'held' | 'retaking';

export interface ReplicaDeps {
  readonly store: Store;
  readonly target: DatabaseTarget;
  readonly id: string;
  readonly leaseMs: number;
  readonly heartbeatMs: number;
  readonly timers: RepeatingTimers;
  readonly logger: Logger;
  /** This server is alone on the database (SQLite's data-directory lock): others' leases are void. */
  readonly exclusive: boolean;
  /** The monotonic clock fencing measures lease validity on (a fake in tests). */
  readonly monotonicMs?: () => number;
  /** The agent profile whose sessions no replica holds (`SessionLeaseDeps.unheldProfile`). */
  readonly unheldProfile?: string;
  /**
   * Called once if another process registered this replica's ID while it ran
   * (it took the lock this one lost): the server must stop. Logged only when absent.
   */
  readonly onSuperseded?: (error: ReplicaSupersededError) => void;
}

/**
 * Runs start-up recovery for exactly these sessions (their lease was just
 * taken over); called again with the same sessions when it failed, so it
 * must be safe to repeat.
 */
export type RecoverSessions = (sessionIds: readonly string[]) => Promise<void>;

/**
 * Runs the queues of idle sessions in `scope` (those no other live replica
 * holds), as start-up recovery does: an agent start refused while this
 * replica had no lock left its message queued, and nothing else would run
 * it before the session's next message. Must be safe to repeat.
 */
export type RequeueSessions = (scope: SessionScope) => Promise<void>;

/**
 * Says, in the transaction of a clean stop's release, that this replica's
 * sessions are free: nothing else would run the queues they keep.
 */
export type AnnounceRelease = (tx: RepoContext) => Promise<void>;

export interface Replica {
  readonly id: string;
  readonly leases: SessionLeases;
  /** The sessions this start's recovery acts on: all when alone, else those no live replica holds. */
  readonly startUpScope: SessionScope;
  /** The other replicas running now; `undefined` when this one is alone on its database. */
  liveElsewhere(): Promise<ReadonlySet<string> | undefined>;
  /**
   * Starts the heartbeat; each tick renews, gives back the leases whose
   * release failed, then takes over and recovers dead replicas' sessions, and
   * after the lock was taken again or such a lease given back runs `requeue`.
   */
  beat(recover: RecoverSessions, requeue?: RequeueSessions): void;
  /** From now on beats only heartbeat and renew: no more takeovers (shutdown under way). */
  quiesce(): void;
  /** Whether it holds its lock now; while `retaking`, the others read it dead. */
  lockState(): ReplicaLockState;
  /** False once another process registered this replica's ID: nothing more is written under it. */
  ownsId(): boolean;
  /**
   * Stops the heartbeat, releases every lease and marks the replica stopped
   * in one transaction, with `announce` telling the other replicas (the
   * `released` wake), unless another process registered its ID (then those
   * are that process's); the leases released. Its lock is let go even when
   * the store fails (then the leases expire, and other replicas take them).
   */
  stop(announce?: AnnounceRelease): Promise<number>;
}

export async function startReplica(deps: ReplicaDeps): Promise<Replica> {
  const { store, id, leaseMs, logger } = deps;
  const lock = await holdReplicaLock(deps.target);
  try {
    const nowMs = store.clock.nowMs();
    const registered = await registerReplica(store, {
      id,
      lockKey: lock.key,
      now: timestampAtMs(nowMs),
      heartbeatAfter: timestampAtMs(nowMs - leaseMs),
    });
    if (!registered.ok) {
      throw new ReplicaIdInUseError(
        `replica ${id} is already running on this database (last heartbeat ${registered.live.heartbeat_at}): ` +
          'give each server its own CLARION_REPLICA_ID, or if it stopped without shutting down, ' +
          `start again once its lease of ${Math.ceil(leaseMs / 1000)} s has run out`,
      );
    }
  } catch (error) {
    await lock.release();
    throw error;
  }
  const leases = new SessionLeases({
    store,
    replicaId: id,
    leaseMs,
    logger,
    timers: deps.timers,
    exclusive: deps.exclusive,
    ...(deps.monotonicMs ? { monotonicMs: deps.monotonicMs } : {}),
    // Alone on the database, no claim can be another replica's to adopt.
    ...(deps.unheldProfile === undefined || deps.exclusive
      ? {}
      : { unheldProfile: deps.unheldProfile }),
  });
  if (deps.exclusive) await retireOtherReplicas(store, id, timestampAtMs(store.clock.nowMs()));
  await pruneReplicas(store, timestampAtMs(store.clock.nowMs() - REPLICA_ROW_RETENTION_MS));
  // Leases of replicas already dead are ours before recovery looks, so no other replica recovers them too.
  const inherited = await leases.takeOver();
  if (inherited.length > 0) {
    logger.info({ sessions: inherited.length }, 'took the leases of replicas that are gone');
  }
  const startUpScope: SessionScope = deps.exclusive
    ? { kind: 'all' }
    : { kind: 'not_held_elsewhere', replicaId: id, now: leases.now() };
  return new RunningReplica(deps, lock, leases, startUpScope);
}

class RunningReplica implements Replica {
  private ticker: { cancel(): void } | undefined;
  private tick: Promise<void> = Promise.resolve();
  private stopped = false;
  private quiesced = false;
  private lock: ReplicaLockState = 'held';
  private superseded = false;
  /** The retry of a lock taken again, under way; `stop` waits for it. */
  private retaking: Promise<void> = Promise.resolve();
  /** Ends the retry's wait at once (stop, superseded). */
  private endRetryWait: (() => void) | undefined;
  /** Sessions taken over whose recovery has not yet succeeded. */
  private readonly unrecovered = new Set<string>();
  /**
   * The lock was taken again, or a lease whose release had failed was given
   * back, and the queues left meanwhile have not yet run.
   */
  private requeueDue = false;
  /** Runs one more tick now, after those under way (set by `beat`). */
  private tickNow: (() => void) | undefined;

  constructor(
    private readonly deps: ReplicaDeps,
    private readonly replicaLock: ReplicaLock,
    readonly leases: SessionLeases,
    readonly startUpScope: SessionScope,
  ) {
    replicaLock.onLost((error) => {
      if (this.stopped || this.superseded) return;
      // Others now read this replica as dead and may take its sessions over; say so loudly.
      deps.logger.error(
        { err: error, replica: deps.id },
        'lost the replica lock connection: other replicas may take over this replica’s sessions ' +
          'until it takes the lock again; meanwhile it takes over nothing and agent starts wait for it',
      );
      this.lock = 'retaking';
      leases.suspend();
      this.retaking = this.retake();
    });
  }

  get id(): string {
    return this.deps.id;
  }

  lockState(): ReplicaLockState {
    return this.lock;
  }

  ownsId(): boolean {
    return !this.superseded;
  }

  async liveElsewhere(): Promise<ReadonlySet<string> | undefined> {
    if (this.deps.exclusive) return undefined;
    const live = await this.leases.liveReplicas();
    return new Set([...live].filter((id) => id !== this.id));
  }

  /** Stopped, or another process took the ID: nothing more to do as this replica. */
  private done(): boolean {
    return this.stopped || this.superseded;
  }

  /** Takes the lock again on a new connection until it holds it, it is superseded, or it stops. */
  private async retake(): Promise<void> {
    const { store, id, logger, timers } = this.deps;
    let waitMs = REPLICA_LOCK_RETRY_MIN_MS;
    while (!this.done()) {
      await new Promise<void>((resolve) => {
        const timer = timers.setTimeout(resolve, waitMs);
        this.endRetryWait = () => {
          timer.cancel();
          resolve();
        };
      });
      if (this.done()) return;
      try {
        const held = await this.replicaLock.retake();
        // Held or not, the row says whether another process registered this ID meanwhile.
        if (!(await replicaRegisteredAs(store, id, this.replicaLock.key))) {
          this.supersede('took the replica lock again, but');
          return;
        }
        if (held) {
          this.lock = 'held';
          this.leases.resume();
          logger.info({ replica: id }, 'took the replica lock again: this replica is live again');
          // Starts refused meanwhile left their messages queued: a tick now runs them.
          this.requeueDue = true;
          this.tickNow?.();
          return;
        }
        // The old connection's backend, not yet gone: it goes with its socket.
        logger.warn(
          { replica: id, retry_ms: waitMs },
          'the replica lock is still held by another connection; trying again',
        );
      } catch (error) {
        logger.warn(
          { err: error, replica: id, retry_ms: waitMs },
          'taking the replica lock again failed; trying again',
        );
      }
      waitMs = Math.min(waitMs * 2, REPLICA_LOCK_RETRY_MAX_MS);
    }
  }

  /**
   * Another process registered this replica's ID: this one stops beating and
   * writes nothing more under the ID (its leases and row are that process's now).
   */
  private supersede(context: string): void {
    if (this.superseded || this.stopped) return;
    this.superseded = true;
    this.ticker?.cancel();
    this.endRetryWait?.();
    // Its agents' exits, as the server shuts down, must not release or revoke the new process's.
    this.leases.supersede();
    const error = new ReplicaSupersededError(
      `${context} another process registered replica ID ${this.id} while this one did not hold ` +
        'its lock: two servers would serve one ID, so this one stops (give each server its own ' +
        'CLARION_REPLICA_ID)',
    );
    this.deps.logger.error({ replica: this.id }, error.message);
    this.deps.onSuperseded?.(error);
  }

  beat(recover: RecoverSessions, requeue?: RequeueSessions): void {
    if (this.ticker || this.stopped || this.superseded) return;
    // One tick at a time: a slow database makes beats late, never overlapping.
    this.tickNow = () => {
      this.tick = this.tick.then(() => this.once(recover, requeue));
    };
    this.ticker = this.deps.timers.every(this.deps.heartbeatMs, () => {
      // Not chained to the ticks: a tick stuck on the database must not keep this from running.
      // Alone on the database (SQLite's data-directory lock), no other server can take over.
      if (!this.deps.exclusive) void this.checkValidity();
      this.tickNow?.();
    });
  }

  private async once(recover: RecoverSessions, requeue?: RequeueSessions): Promise<void> {
    if (this.stopped || this.superseded) return;
    const { store, id, logger } = this.deps;
    try {
      const now = timestampAtMs(store.clock.nowMs());
      if (!(await heartbeatReplica(store, id, this.replicaLock.key, now))) {
        this.supersede('its heartbeat found');
        return;
      }
      // Lock-less, this renew fences the sessions the others took meanwhile.
      await this.leases.renew();
      // Fenced when no renew got through in time, and still ours: recovered here like taken ones.
      for (const sessionId of this.leases.takeRegained()) this.unrecovered.add(sessionId);
      // A release the database refused kept a lease no agent here uses: a start elsewhere was
      // refused meanwhile, its message queued for this replica, which runs nothing for it.
      if ((await this.leases.releaseUnreleased()).length > 0) this.requeueDue = true;
      // Lock-less, the others read this replica dead: what it took or recovered could be theirs at once.
      if (this.quiesced || this.lock !== 'held') return;
      const taken = await this.leases.takeOver();
      if (taken.length > 0) {
        logger.warn(
          { sessions: taken },
          'took over the sessions of a replica that stopped heartbeating',
        );
      }
      for (const sessionId of taken) this.unrecovered.add(sessionId);
      // One lost meanwhile is its new holder's to recover.
      for (const sessionId of this.unrecovered) {
        if (this.leases.isFenced(sessionId)) this.unrecovered.delete(sessionId);
      }
      if (this.unrecovered.size > 0) {
        const due = [...this.unrecovered];
        await recover(due);
        for (const sessionId of due) this.unrecovered.delete(sessionId);
        await this.leases.releaseUnused();
      }
      if (this.requeueDue && requeue) await this.requeue(requeue);
    } catch (error) {
      logger.warn({ err: error }, 'replica heartbeat failed; trying again at the next one');
    }
  }

  /** Runs the queues left while lock-less; still due if it fails, for the next beat. */
  private async requeue(requeue: RequeueSessions): Promise<void> {
    // Cleared first: a lock lost and taken again while this runs makes it due once more.
    this.requeueDue = false;
    const scope: SessionScope = {
      kind: 'not_held_elsewhere',
      replicaId: this.id,
      now: this.leases.now(),
    };
    try {
      await requeue(scope);
    } catch (error) {
      this.requeueDue = true;
      throw error;
    }
  }

  private async checkValidity(): Promise<void> {
    const { logger, heartbeatMs } = this.deps;
    try {
      // A beat's grace: a renew after a pause gets through before this fences anything.
      const fenced = await this.leases.checkValidity(heartbeatMs);
      if (fenced.length > 0) {
        logger.error(
          { sessions: fenced.length },
          'no lease renew got through within the leases’ validity: stopped what runs here for ' +
            'those sessions; those still this replica’s are recovered once the database answers',
        );
      }
    } catch (error) {
      logger.error({ err: error }, 'fencing unconfirmed sessions failed');
    }
  }

  quiesce(): void {
    this.quiesced = true;
  }

  async stop(announce?: AnnounceRelease): Promise<number> {
    if (this.stopped) return 0;
    this.stopped = true;
    this.ticker?.cancel();
    this.endRetryWait?.();
    await this.tick;
    await this.retaking;
    const { store, id } = this.deps;
    const key = this.replicaLock.key;
    try {
      return await idempotentOnNewConnection(async () => {
        // Without the lock, another process may have registered the ID: its leases are not ours.
        const ours =
          !this.superseded && (this.lock === 'held' || (await replicaRegisteredAs(store, id, key)));
        if (!ours) return 0;
        // One commit: a replica that hears the wake finds the leases free and this one stopped.
        return store.transaction(async (tx) => {
          const released = await this.leases.releaseAll(tx);
          await markReplicaStopped(tx, id, key, timestampAtMs(store.clock.nowMs()));
          await announce?.(tx);
          return released;
        });
      });
    } finally {
      await this.replicaLock.release();
    }
  }
}
