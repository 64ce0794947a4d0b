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
 * marks it stopped.
 */
import type { Logger } from '../observability/index.js';
import {
  heartbeatReplica,
  holdReplicaLock,
  markReplicaStopped,
  pruneReplicas,
  registerReplica,
  retireOtherReplicas,
  timestampAtMs,
  type DatabaseTarget,
  type ReplicaLock,
  type SessionScope,
  type Store,
} from '../store/index.js';
import type { RepeatingTimers } from '../support/index.js';
import { REPLICA_ROW_RETENTION_MS } from '../tunables.js';
import { SessionLeases } from './leases.js';

export class ReplicaIdInUseError extends Error {
  readonly code = 'replica_id_in_use';
  constructor(message: string) {
    super(message);
    this.name = 'ReplicaIdInUseError';
  }
}

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
}

/**
 * Runs start-up recovery for exactly these sessions (their lease was just
 * taken over); called again with the same sessions when it failed, so it
 * must be safe to repeat.
 */
export type RecoverSessions = (sessionIds: readonly string[]) => Promise<void>;

export interface Replica {
  readonly id: string;
  readonly leases: SessionLeases;
  /** The sessions this start's recovery acts on: all when alone, else those no live replica holds. */
  readonly startUpScope: SessionScope;
  /** The other replicas running now; `undefined` when this one is alone on its database. */
  liveElsewhere(): Promise<ReadonlySet<string> | undefined>;
  /** Starts the heartbeat; each tick renews, then takes over and recovers dead replicas' sessions. */
  beat(recover: RecoverSessions): void;
  /** From now on beats only heartbeat and renew: no more takeovers (shutdown under way). */
  quiesce(): void;
  /** Stops the heartbeat, releases every lease and marks the replica stopped; the leases released. */
  stop(): Promise<number>;
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
  /** Sessions taken over whose recovery has not yet succeeded. */
  private readonly unrecovered = new Set<string>();

  constructor(
    private readonly deps: ReplicaDeps,
    private readonly lock: ReplicaLock,
    readonly leases: SessionLeases,
    readonly startUpScope: SessionScope,
  ) {
    lock.onLost((error) => {
      // Others now read this replica as dead and take its sessions over; say so loudly.
      deps.logger.error(
        { err: error, replica: deps.id },
        'lost the replica lock connection: other replicas may take over this replica’s sessions',
      );
    });
  }

  get id(): string {
    return this.deps.id;
  }

  async liveElsewhere(): Promise<ReadonlySet<string> | undefined> {
    if (this.deps.exclusive) return undefined;
    const live = await this.leases.liveReplicas();
    return new Set([...live].filter((id) => id !== this.id));
  }

  beat(recover: RecoverSessions): void {
    if (this.ticker || this.stopped) return;
    this.ticker = this.deps.timers.every(this.deps.heartbeatMs, () => {
      // Not chained to the ticks: a tick stuck on the database must not keep this from running.
      // Alone on the database (SQLite's data-directory lock), no other server can take over.
      if (!this.deps.exclusive) void this.checkValidity();
      // One tick at a time: a slow database makes beats late, never overlapping.
      this.tick = this.tick.then(() => this.once(recover));
    });
  }

  private async once(recover: RecoverSessions): Promise<void> {
    if (this.stopped) return;
    const { store, id, logger } = this.deps;
    try {
      if (!(await heartbeatReplica(store, id, timestampAtMs(store.clock.nowMs())))) {
        logger.error({ replica: id }, 'this replica was marked stopped by another start');
      }
      await this.leases.renew();
      // Fenced when no renew got through in time, and still ours: recovered here like taken ones.
      for (const sessionId of this.leases.takeRegained()) this.unrecovered.add(sessionId);
      if (this.quiesced) return;
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
      if (this.unrecovered.size === 0) return;
      const due = [...this.unrecovered];
      await recover(due);
      for (const sessionId of due) this.unrecovered.delete(sessionId);
      await this.leases.releaseUnused();
    } catch (error) {
      logger.warn({ err: error }, 'replica heartbeat failed; trying again at the next one');
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

  async stop(): Promise<number> {
    if (this.stopped) return 0;
    this.stopped = true;
    this.ticker?.cancel();
    await this.tick;
    const { store, id } = this.deps;
    const released = await this.leases.releaseAll();
    await markReplicaStopped(store, id, timestampAtMs(store.clock.nowMs()));
    await this.lock.release();
    return released;
  }
}
