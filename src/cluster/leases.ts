/**
 * This replica's session leases (issue 16). Only the holder of a session's
 * lease starts, prompts or stops its agent: a start acquires it first (free,
 * our own, or no longer live), an agent's exit releases it, every heartbeat
 * renews all of ours in one statement, and shutdown releases them all. A
 * release the database refused is tried again at each beat until it gets
 * through (`releaseUnreleased`), or a start here takes the lease again.
 *
 * `started` remembers the sessions whose lease a start took, so a pass that
 * gives back leases nobody uses (after recovery) never frees one whose agent
 * is starting. A session's acquire and release run one at a time here, so
 * such a pass and a start never interleave their statements.
 *
 * Fencing: a replica that hung past its lease (SIGSTOP, a GC pause, a frozen
 * VM) has lost its sessions to another replica without being told. So it
 * trusts its leases from memory only until its last renew's start plus the
 * lease, less a margin, on its monotonic clock; past that, `confirm` renews
 * first. Every renew compares what it still holds with what it held when it
 * began: the sessions lost are handed to the `onLost` listener (which stops
 * their agents and waits here, writing nothing) and stay fenced until a start
 * here takes their lease again. A session acquired or released here while a
 * renew ran is not judged by it (its row changed under the renew's statement);
 * the next renew judges it.
 *
 * A replica that runs but cannot renew (the database is unreachable from
 * here, or a statement hangs) cannot tell either whether another replica took
 * its sessions. `checkValidity`, called at every beat apart from the beat's
 * own renew, fences every session held once the leases stayed past their
 * validity for a grace period with no renew getting through. The rows are
 * left as they are; a later renew that finds some of them still ours, its
 * reply within its own validity, hands those back (`takeRegained`) to be
 * recovered here, as a takeover would.
 *
 * A replica that lost its lock (`replica.ts`) reads dead to the others, who
 * may take any of its sessions at any moment: while `suspend`ed no lease is
 * trusted from memory (`confirm` renews first, fencing the sessions taken)
 * and a start waits a bound for the lock before it is refused.
 *
 * A replica whose ID another process registered meanwhile (`supersede`)
 * holds nothing any more: the rows under the ID are that process's, and so
 * are the agents' credentials of those sessions. Every session reads fenced
 * (the event pump drops what its agents report, their exits included), a
 * start is refused, and releases and renews write nothing.
 */
import { performance } from 'node:perf_hooks';
import type { Logger } from '../observability/index.js';
import { systemTimers, withinFreshBudget, type Timers } from '../support/index.js';
import { LEASE_FENCE_MARGIN_MS, REPLICA_LOCK_START_WAIT_MS } from '../tunables.js';
import {
  acquireLease,
  countLeases,
  leasedSessions,
  liveReplicaIds,
  releaseLease,
  releaseLeasesOf,
  renewLeases,
  adoptOrphanedClaims,
  takeOverLeases,
  timestampAtMs,
  type LeaseTerms,
  type RepoContext,
  type Store,
} from '../store/index.js';

export interface SessionLeaseDeps {
  readonly store: Store;
  readonly replicaId: string;
  readonly leaseMs: number;
  /** Monotonic milliseconds (a fake in tests); `performance.now` when absent. */
  readonly monotonicMs?: () => number;
  readonly fenceMarginMs?: number;
  readonly logger?: Logger;
  /**
   * The agent profile whose sessions no replica holds (an external agent's):
   * a takeover adopts every other session whose claim's taker died unheld.
   */
  readonly unheldProfile?: string;
  /** Alone on the database (SQLite's data-directory lock): no other server can take a lease. */
  readonly exclusive?: boolean;
  /** Bounds a start's wait for the lock while suspended; `systemTimers` when absent. */
  readonly timers?: Timers;
  readonly lockWaitMs?: number;
}

/** Ends what runs here for sessions whose lease another replica now holds; writes nothing. */
export type LostSessions = (sessionIds: readonly string[]) => Promise<void>;

const LOST =
  'this replica no longer holds this session’s lease (taken over while this one was paused ' +
  'past its lease, or the session was deleted elsewhere): its agent, waits and requests here ' +
  'end without writing';
const UNCONFIRMED =
  'this replica could not renew this session’s lease within its validity, so another replica ' +
  'may hold it: its agent, waits and requests here end without writing; it is recovered here ' +
  'if the lease is still this replica’s once the database answers';

export class SessionLeases {
  private readonly started = new Set<string>();
  /** The sessions this replica believes it holds: taken by a start, a takeover or start-up. */
  private readonly held = new Set<string>();
  /** Released here, but the database refused the release: the row may still be ours. */
  private readonly unreleased = new Set<string>();
  /** Lost to another replica and not taken again here since. */
  private readonly lost = new Set<string>();
  /** Fencing under way, per session: a `confirm` waits for it. */
  private readonly fencing = new Map<string, Promise<void>>();
  /** Per session, the lease change under way here: the next one waits for it. */
  private readonly changing = new Map<string, Promise<unknown>>();
  /** Counts lease changes made here; `changedAt` is each session's last. */
  private changes = 0;
  private readonly changedAt = new Map<string, number>();
  private validUntilMs = Number.NEGATIVE_INFINITY;
  /** When `checkValidity` first found the leases past their validity, on the monotonic clock. */
  private lapsedSinceMs: number | undefined;
  /** Fenced by `checkValidity`, their rows untouched: still ours if a renew keeps them. */
  private readonly unconfirmed = new Set<string>();
  /** Unconfirmed sessions a renew found still ours, for the replica to recover. */
  private regained: string[] = [];
  private renewing: Promise<number> | undefined;
  private lostListener: LostSessions = () => Promise.resolve();
  /** Another process registered this replica's ID: nothing under it is ours. */
  private superseded = false;
  /** Set while this replica does not hold its lock; settles when it does again. */
  private suspension: { readonly resumed: Promise<void>; readonly resume: () => void } | undefined;

  constructor(private readonly deps: SessionLeaseDeps) {}

  private monotonicNow(): number {
    return (this.deps.monotonicMs ?? (() => performance.now()))();
  }

  /** Who ends what runs here for lost sessions (the composition root wires turns). */
  onLost(listener: LostSessions): void {
    this.lostListener = listener;
  }

  get replicaId(): string {
    return this.deps.replicaId;
  }

  private terms(): LeaseTerms {
    const nowMs = this.deps.store.clock.nowMs();
    return {
      replicaId: this.deps.replicaId,
      now: timestampAtMs(nowMs),
      expiresAt: timestampAtMs(nowMs + this.deps.leaseMs),
    };
  }

  /** Runs one lease change of the session after the one under way here, if any. */
  private change<T>(sessionId: string, apply: () => Promise<T>): Promise<T> {
    const previous = this.changing.get(sessionId) ?? Promise.resolve();
    const next = previous
      .catch(() => undefined)
      .then(async () => {
        try {
          return await apply();
        } finally {
          this.changedAt.set(sessionId, ++this.changes);
        }
      });
    this.changing.set(sessionId, next);
    const forget = () => {
      if (this.changing.get(sessionId) === next) this.changing.delete(sessionId);
    };
    next.then(forget, forget);
    return next;
  }

  /**
   * Takes the session's lease for an agent start; false while another live
   * replica holds it, or this one lost its lock and did not take it again
   * within the bound (the others read it dead: a lease taken now would be
   * theirs to take at once).
   */
  async acquire(sessionId: string): Promise<boolean> {
    if (this.superseded) return false;
    if (
      this.suspension &&
      !(await this.lockWithin(this.deps.lockWaitMs ?? REPLICA_LOCK_START_WAIT_MS))
    )
      return false;
    return this.change(sessionId, async () => {
      const held = await acquireLease(this.deps.store, sessionId, this.terms());
      if (held) {
        this.started.add(sessionId);
        this.holding(sessionId);
      }
      return held;
    });
  }

  /** This replica lost its lock: the others may take its sessions at any moment. */
  suspend(): void {
    if (this.suspension) return;
    let resume: () => void = () => undefined;
    const resumed = new Promise<void>((resolve) => {
      resume = resolve;
    });
    this.suspension = { resumed, resume };
  }

  /**
   * Another process registered this replica's ID: from now on this one writes
   * no lease, and every session reads fenced. For good.
   */
  supersede(): void {
    this.superseded = true;
    this.suspend();
  }

  /** This replica holds its lock again. */
  resume(): void {
    this.suspension?.resume();
    this.suspension = undefined;
  }

  /** Whether the lock is held, waiting up to `ms` for it. */
  private async lockWithin(ms: number): Promise<boolean> {
    const suspension = this.suspension;
    if (!suspension) return true;
    const timers = this.deps.timers ?? systemTimers;
    await withinFreshBudget(ms, this.deps.store.clock, timers, () => suspension.resumed);
    return this.suspension === undefined;
  }

  private holding(sessionId: string): void {
    this.held.add(sessionId);
    this.lost.delete(sessionId);
    this.unreleased.delete(sessionId);
  }

  /**
   * Runs `work` unless a start here took the session's lease (or the replica was
   * superseded: the credential it would revoke is the new process's), one at a time
   * with this replica's lease changes for it, so a start's acquire comes
   * wholly before or after it (and its agent's credential after that).
   * Whether `work` ran.
   */
  unlessStarted(sessionId: string, work: () => Promise<unknown>): Promise<boolean> {
    return this.change(sessionId, async () => {
      if (this.started.has(sessionId) || this.superseded) return false;
      await work();
      return true;
    });
  }

  /**
   * Gives the session's lease back (its agent stopped or never started). One
   * the database refused stays `unreleased`: the beat gives it back
   * (`releaseUnreleased`), since every renew would otherwise keep it ours for
   * good while no agent of it runs here.
   */
  async release(sessionId: string): Promise<void> {
    await this.change(sessionId, async () => {
      this.started.delete(sessionId);
      this.held.delete(sessionId);
      // Its row, under the same ID, is the new process's: a delete would free its agent's lease.
      if (this.superseded) return;
      this.unreleased.add(sessionId);
      await releaseLease(this.deps.store, sessionId, this.deps.replicaId);
      this.unreleased.delete(sessionId);
    });
  }

  /**
   * Gives back the leases whose release failed and that no start here took
   * since; the sessions freed. One that fails again stays for the next call.
   */
  async releaseUnreleased(): Promise<string[]> {
    const freed: string[] = [];
    for (const sessionId of [...this.unreleased]) {
      await this.change(sessionId, async () => {
        if (!this.unreleased.has(sessionId) || this.superseded) return;
        await releaseLease(this.deps.store, sessionId, this.deps.replicaId);
        this.unreleased.delete(sessionId);
        freed.push(sessionId);
      });
    }
    return freed;
  }

  /**
   * Renews every lease of this replica in one statement and fences the
   * sessions it held when it began but no longer holds; how many it holds.
   * Concurrent calls share one renew.
   */
  renew(): Promise<number> {
    this.renewing ??= this.renewOnce().finally(() => {
      this.renewing = undefined;
    });
    return this.renewing;
  }

  private async renewOnce(): Promise<number> {
    if (this.superseded) return 0;
    const began = this.monotonicNow();
    const before = [...this.held];
    const changesBefore = this.changes;
    // A change still under way may land before or after the statement: it cannot be judged either.
    const underWay = new Set(this.changing.keys());
    const kept = new Set(
      await renewLeases(this.deps.store, this.deps.replicaId, this.terms().expiresAt),
    );
    const margin = Math.min(
      this.deps.fenceMarginMs ?? LEASE_FENCE_MARGIN_MS,
      Math.floor(this.deps.leaseMs / 3),
    );
    const validUntilMs = began + this.deps.leaseMs - margin;
    this.validUntilMs = validUntilMs;
    // A lapse `checkValidity` saw before this renew is over: its grace starts afresh at the next.
    this.lapsedSinceMs = undefined;
    const lost = before.filter(
      (sessionId) =>
        !kept.has(sessionId) &&
        this.held.has(sessionId) &&
        !underWay.has(sessionId) &&
        (this.changedAt.get(sessionId) ?? 0) <= changesBefore,
    );
    // Renews never overlap, so no later one needs the changes made before this one began.
    for (const [sessionId, at] of this.changedAt) {
      if (at <= changesBefore) this.changedAt.delete(sessionId);
    }
    // A reply that came after this renew's own validity proves nothing about now: another
    // replica may have taken the lease since the statement ran. The next renew judges them.
    if (this.monotonicNow() < validUntilMs) {
      for (const sessionId of this.unconfirmed) {
        this.unconfirmed.delete(sessionId);
        // Not taken by another replica meanwhile (nor by a start here): ours to recover.
        if (kept.has(sessionId) && this.lost.has(sessionId)) {
          this.holding(sessionId);
          this.regained.push(sessionId);
        }
      }
    }
    if (lost.length > 0) await this.fence(lost, LOST);
    return kept.size;
  }

  /**
   * At every beat, apart from the beat's renew: when the leases held here
   * stayed past their validity for `graceMs` and no renew got through, fences
   * them all (writing nothing); the sessions fenced. A renew that gets
   * through within the grace (a pause that ended) fences nothing.
   */
  async checkValidity(graceMs: number): Promise<string[]> {
    const now = this.monotonicNow();
    if (this.held.size === 0 || now < this.validUntilMs) {
      this.lapsedSinceMs = undefined;
      return [];
    }
    this.lapsedSinceMs ??= now;
    if (now - this.lapsedSinceMs < graceMs) return [];
    this.lapsedSinceMs = undefined;
    const sessionIds = [...this.held];
    for (const sessionId of sessionIds) this.unconfirmed.add(sessionId);
    await this.fence(sessionIds, UNCONFIRMED);
    return sessionIds;
  }

  /** The sessions fenced by `checkValidity` that a renew since found still ours; each once. */
  takeRegained(): string[] {
    const regained = this.regained;
    this.regained = [];
    return regained;
  }

  private async fence(sessionIds: readonly string[], why: string): Promise<void> {
    for (const sessionId of sessionIds) {
      this.held.delete(sessionId);
      this.started.delete(sessionId);
      this.lost.add(sessionId);
      this.deps.logger?.warn({ session_id: sessionId, replica: this.deps.replicaId }, why);
    }
    const done = this.lostListener(sessionIds).catch((error: unknown) => {
      this.deps.logger?.error({ err: error }, 'fencing lost sessions failed');
    });
    for (const sessionId of sessionIds) this.fencing.set(sessionId, done);
    await done;
    for (const sessionId of sessionIds) {
      if (this.fencing.get(sessionId) === done) this.fencing.delete(sessionId);
    }
  }

  /**
   * Before an action that needs the session's lease (hand an answer to a
   * live waiter, prompt, cancel or stop its agent, apply a forwarded answer):
   * false when this replica held it and has lost it, or could not tell (two
   * renews in a row answered past their validity), once what ran here for it
   * has ended; true otherwise (held, or never ours: the caller's own path
   * decides). Talks to the database only when the local validity lapsed.
   */
  async confirm(sessionId: string): Promise<boolean> {
    /** The last renew's reply came past its own validity: what it kept says nothing of now. */
    let late = false;
    // A renew that was already under way may have begun before a pause: then once more.
    for (let renews = 0; renews < 2; renews++) {
      late = false;
      // Without the lock no lease is certain: another replica may have taken it since the last renew.
      const trusted = !this.suspension && this.monotonicNow() < this.validUntilMs;
      if (!this.held.has(sessionId) || trusted) break;
      try {
        await this.renew();
      } catch (error) {
        // The database cannot say: the action goes on as before fencing, and its own writes fail.
        this.deps.logger?.warn({ err: error, session_id: sessionId }, 'renewing leases failed');
        break;
      }
      late = this.monotonicNow() >= this.validUntilMs;
    }
    // Another replica may have taken the lease since either statement ran: fenced unconfirmed, as
    // `checkValidity` fences, and handed back for recovery if a timely renew finds it still ours.
    if (late && !this.deps.exclusive && this.held.has(sessionId)) {
      this.unconfirmed.add(sessionId);
      await this.fence([sessionId], UNCONFIRMED);
    }
    const fencing = this.fencing.get(sessionId);
    if (fencing) await fencing;
    return !this.isFenced(sessionId);
  }

  /**
   * Whether the session was lost here to another replica and not taken again
   * since, or this replica was superseded (then every session is).
   */
  isFenced(sessionId: string): boolean {
    return this.superseded || this.lost.has(sessionId);
  }

  /**
   * Takes the leases whose holder stopped heartbeating or died, and those of
   * sessions left with a dead replica's claim and no lease (`adoptOrphanedClaims`);
   * each goes to one replica.
   */
  async takeOver(): Promise<string[]> {
    const { store, unheldProfile } = this.deps;
    const terms = this.terms();
    const taken = await takeOverLeases(store, terms);
    const adopted =
      unheldProfile === undefined
        ? []
        : await adoptOrphanedClaims(
            store,
            { ...terms, heartbeatAfter: this.heartbeatAfter() },
            unheldProfile,
          );
    for (const sessionId of [...taken, ...adopted]) this.holding(sessionId);
    return [...taken, ...adopted].sort();
  }

  /** Releases the leases recovery took for sessions whose agent did not start here. */
  async releaseUnused(): Promise<number> {
    let released = 0;
    for (const sessionId of await leasedSessions(this.deps.store, this.deps.replicaId)) {
      const freed = await this.change(sessionId, async () => {
        // A start took it first: it keeps the lease.
        if (this.started.has(sessionId) || this.superseded) return false;
        this.held.delete(sessionId);
        this.unreleased.add(sessionId);
        const freed = await releaseLease(this.deps.store, sessionId, this.deps.replicaId);
        this.unreleased.delete(sessionId);
        return freed;
      });
      if (freed) released++;
    }
    return released;
  }

  /** Gives back every lease of this replica, in `ctx` (a stop's transaction) or at once. */
  async releaseAll(ctx: RepoContext = this.deps.store): Promise<number> {
    this.started.clear();
    this.held.clear();
    this.unconfirmed.clear();
    this.unreleased.clear();
    if (this.superseded) return 0;
    return releaseLeasesOf(ctx, this.deps.replicaId);
  }

  count(): Promise<number> {
    return countLeases(this.deps.store, this.deps.replicaId);
  }

  /** The replicas running with a heartbeat within the lease, this one included. */
  async liveReplicas(): Promise<ReadonlySet<string>> {
    return new Set(await liveReplicaIds(this.deps.store, this.heartbeatAfter()));
  }

  /** A replica whose heartbeat is older than this is not live. */
  private heartbeatAfter(): string {
    return timestampAtMs(this.deps.store.clock.nowMs() - this.deps.leaseMs);
  }

  /** Timestamp of now, as leases are judged. */
  now(): string {
    return this.terms().now;
  }
}
