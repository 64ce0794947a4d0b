/**
 * Open MCP sessions in memory, keyed by `Mcp-Session-Id`. A session belongs
 * to the principal that opened it: a request with another principal's token
 * is answered as if the session did not exist. What opens one again after
 * an idle close or a restart is kept in the store (`shared-sessions.ts`);
 * without it, clients initialize again.
 *
 * Bounded so that no caller can lock others out (issue 17):
 * - per principal (a user token, or one session's agent token), per user
 *   (all principals acting for one user) and per server. A new session over
 *   a bound takes the place of the oldest idle session within that bound: the
 *   caller's own first, since the narrowest bound is checked first. A session
 *   with a call in flight, or holding an ask past its call, is never idle:
 *   closing it would end a wait a person may be about to answer. With none
 *   idle the caller is refused.
 * - The per-user bound is below the server's, so one user alone can never
 *   make the server refuse anyone else.
 * - Sessions idle for `idleMs` are closed by `sweep` (run on a timer and
 *   before every admission), so clients that never send DELETE do not linger;
 *   one holding an ask of an agent Clarion runs is not idle until that ask
 *   ends (its turn's end bounds it), while another client's held ask, which
 *   nothing else tells gone, ends with its session's idle close.
 *
 * Admission reserves a slot before the session exists (the `initialize`
 * request is still being served), so concurrent initializes cannot overshoot.
 */
import {
  MCP_SESSION_IDLE_MS,
  MCP_SESSIONS_PER_PRINCIPAL,
  MCP_SESSIONS_PER_SERVER,
  MCP_SESSIONS_PER_USER,
} from '../../tunables.js';

export interface SessionEntry {
  readonly id: string;
  /** The principal that opened it (`principalKey`). */
  readonly owner: string;
  /** The user that principal acts for. */
  readonly user: string;
  lastSeenMs: number;
  /** Tool calls still running; a session with calls in flight is never evicted. */
  inFlight(): number;
  /** Asks held past their calls: a new session over a bound never takes such a session's place. */
  held?(): number;
  /**
   * Of those, agents' asks that last until their turns end: such a session is
   * not closed as idle either (each ends with its turn or the live-wait budget).
   */
  heldForTurns?(): number;
  close(): Promise<void>;
}

export interface McpSessionLimits {
  readonly perPrincipal: number;
  readonly perUser: number;
  readonly perServer: number;
  readonly idleMs: number;
}

export const DEFAULT_MCP_SESSION_LIMITS: McpSessionLimits = {
  perPrincipal: MCP_SESSIONS_PER_PRINCIPAL,
  perUser: MCP_SESSIONS_PER_USER,
  perServer: MCP_SESSIONS_PER_SERVER,
  idleMs: MCP_SESSION_IDLE_MS,
};

export type QuotaScope = 'principal' | 'user' | 'server';

/** A reserved place for one session; filled once `initialize` succeeded, else released. */
export interface SessionSlot<T extends SessionEntry> {
  fill(entry: T): void;
  release(): void;
}

export type SessionAdmission<T extends SessionEntry> =
  { ok: true; slot: SessionSlot<T> } | { ok: false; scope: QuotaScope; limit: number };

interface Holder {
  readonly owner: string;
  readonly user: string;
}

export class McpSessions<T extends SessionEntry = SessionEntry> {
  private readonly entries = new Map<string, T>();
  private readonly reserved = new Set<Holder>();

  constructor(
    private readonly nowMs: () => number,
    private readonly limits: McpSessionLimits = DEFAULT_MCP_SESSION_LIMITS,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** The sessions open here now. */
  open(): IterableIterator<T> {
    return this.entries.values();
  }

  /** The session for a request of `owner`; `undefined` when unknown or someone else's. */
  lookup(id: string, owner: string): T | undefined {
    const entry = this.entries.get(id);
    if (entry?.owner !== owner) return undefined;
    entry.lastSeenMs = this.nowMs();
    return entry;
  }

  /** A call of the session ended: it counts as used now, not when the call began. */
  touch(id: string): void {
    const entry = this.entries.get(id);
    if (entry) entry.lastSeenMs = this.nowMs();
  }

  /**
   * `entry` closed: it leaves the table unless another copy of its session
   * holds its place already. An old copy's close may end after the same
   * session was opened again here (an idle close, then the client's next
   * request); removing by ID alone would drop the new copy, which would then
   * stay open with no way to reach or close it.
   */
  remove(id: string, entry: T): void {
    if (this.entries.get(id) === entry) this.entries.delete(id);
  }

  /**
   * Room for one more session of `holder`: closes what idled past `idleMs`,
   * then per bound over its limit picks the oldest idle session within it.
   * Nothing is closed unless every bound then has room.
   */
  async admit(holder: Holder): Promise<SessionAdmission<T>> {
    const closing = this.takeExpired();
    const bounds: [QuotaScope, number, (held: Holder) => boolean][] = [
      ['principal', this.limits.perPrincipal, (held) => held.owner === holder.owner],
      ['user', this.limits.perUser, (held) => held.user === holder.user],
      ['server', this.limits.perServer, () => true],
    ];
    const victims = new Set<T>();
    let refused: { scope: QuotaScope; limit: number } | undefined;
    for (const [scope, limit, within] of bounds) {
      if (this.count(within, victims) < limit) continue;
      const victim = this.oldestIdle(within, victims);
      if (!victim || this.count(within, victims) - 1 >= limit) {
        refused = { scope, limit };
        break;
      }
      victims.add(victim);
    }
    if (!refused) {
      for (const victim of victims) {
        this.entries.delete(victim.id);
        closing.push(victim);
      }
    }
    await closeAll(closing);
    if (refused) return { ok: false, ...refused };
    const held: Holder = { owner: holder.owner, user: holder.user };
    this.reserved.add(held);
    return {
      ok: true,
      slot: {
        fill: (entry) => {
          if (!this.reserved.delete(held)) return;
          this.entries.set(entry.id, entry);
        },
        release: () => {
          this.reserved.delete(held);
        },
      },
    };
  }

  /** Closes sessions idle (no call in flight, no agent's ask held) for `idleMs`; returns how many. */
  async sweep(): Promise<number> {
    const expired = this.takeExpired();
    await closeAll(expired);
    return expired.length;
  }

  /** Closes one session whoever holds it; false when it is not open here. */
  async close(id: string): Promise<boolean> {
    const entry = this.entries.get(id);
    if (!entry) return false;
    this.entries.delete(id);
    await entry.close();
    return true;
  }

  async closeAll(): Promise<void> {
    const all = [...this.entries.values()];
    this.entries.clear();
    await closeAll(all);
  }

  private takeExpired(): T[] {
    const idleBefore = this.nowMs() - this.limits.idleMs;
    const expired = [...this.entries.values()].filter(
      (entry) =>
        entry.inFlight() === 0 &&
        (entry.heldForTurns?.() ?? 0) === 0 &&
        entry.lastSeenMs <= idleBefore,
    );
    for (const entry of expired) this.entries.delete(entry.id);
    return expired;
  }

  private count(within: (held: Holder) => boolean, excluded: ReadonlySet<T>): number {
    let count = 0;
    for (const entry of this.entries.values()) {
      if (within(entry) && !excluded.has(entry)) count += 1;
    }
    for (const held of this.reserved) if (within(held)) count += 1;
    return count;
  }

  private oldestIdle(within: (held: Holder) => boolean, excluded: ReadonlySet<T>): T | undefined {
    let oldest: T | undefined;
    for (const entry of this.entries.values()) {
      if (!within(entry) || excluded.has(entry) || !evictable(entry)) continue;
      if (!oldest || entry.lastSeenMs < oldest.lastSeenMs) oldest = entry;
    }
    return oldest;
  }
}

/** Idle for a new session's sake: nothing runs in it, and no ask it holds waits for a person. */
function evictable(entry: SessionEntry): boolean {
  return entry.inFlight() === 0 && (entry.held?.() ?? 0) === 0;
}

async function closeAll(entries: readonly SessionEntry[]): Promise<void> {
  await Promise.all(entries.map((entry) => entry.close()));
}
