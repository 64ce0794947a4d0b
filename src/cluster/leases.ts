/**
 * This replica's session leases (issue 16). Only the holder of a session's
 * lease starts, prompts or stops its agent: a start acquires it first (free,
 * our own, or no longer live), an agent's exit releases it, every heartbeat
 * renews all of ours in one statement, and shutdown releases them all.
 *
 * `started` remembers the sessions whose lease a start took, so a pass that
 * gives back leases nobody uses (after recovery) never frees one whose agent
 * is starting.
 */
import {
  acquireLease,
  countLeases,
  leasedSessions,
  releaseLease,
  releaseLeasesOf,
  renewLeases,
  takeOverLeases,
  timestampAtMs,
  type LeaseTerms,
  type Store,
} from '../store/index.js';

export interface SessionLeaseDeps {
  readonly store: Store;
  readonly replicaId: string;
  readonly leaseMs: number;
}

export class SessionLeases {
  private readonly started = new Set<string>();

  constructor(private readonly deps: SessionLeaseDeps) {}

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

  /** Takes the session's lease for an agent start; false while another live replica holds it. */
  async acquire(sessionId: string): Promise<boolean> {
    const held = await acquireLease(this.deps.store, sessionId, this.terms());
    if (held) this.started.add(sessionId);
    return held;
  }

  /** Gives the session's lease back (its agent stopped or never started). */
  async release(sessionId: string): Promise<void> {
    this.started.delete(sessionId);
    await releaseLease(this.deps.store, sessionId, this.deps.replicaId);
  }

  /** Renews every lease of this replica; how many it holds. */
  renew(): Promise<number> {
    return renewLeases(this.deps.store, this.deps.replicaId, this.terms().expiresAt);
  }

  /** Takes the leases whose holder stopped heartbeating or died; each goes to one replica. */
  takeOver(): Promise<string[]> {
    return takeOverLeases(this.deps.store, this.terms());
  }

  /** Releases the leases recovery took for sessions whose agent did not start here. */
  async releaseUnused(): Promise<number> {
    let released = 0;
    for (const sessionId of await leasedSessions(this.deps.store, this.deps.replicaId)) {
      if (this.started.has(sessionId)) continue;
      if (!(await releaseLease(this.deps.store, sessionId, this.deps.replicaId))) continue;
      // A start that took it while we let go: it keeps the lease it had.
      if (this.started.has(sessionId)) await acquireLease(this.deps.store, sessionId, this.terms());
      else released++;
    }
    return released;
  }

  releaseAll(): Promise<number> {
    this.started.clear();
    return releaseLeasesOf(this.deps.store, this.deps.replicaId);
  }

  count(): Promise<number> {
    return countLeases(this.deps.store, this.deps.replicaId);
  }

  /** Timestamp of now, as leases are judged. */
  now(): string {
    return this.terms().now;
  }
}
