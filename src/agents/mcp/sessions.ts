/**
 * Open MCP sessions in memory, keyed by `Mcp-Session-Id`. A session belongs
 * to the principal that opened it: a request with another principal's token
 * is answered as if the session did not exist. Memory only, by design: a
 * restart drops every session and clients initialize again.
 *
 * Bounded: sessions idle for `idleMs` with no call in flight are closed
 * whenever room is needed, so clients that never send DELETE cannot pile up.
 */
import { MCP_SESSION_IDLE_MS } from '../../tunables.js';
export interface SessionEntry {
  readonly id: string;
  readonly owner: string;
  lastSeenMs: number;
  /** Tool calls still running; a session with calls in flight is never evicted. */
  inFlight(): number;
  close(): Promise<void>;
}

export const MAX_MCP_SESSIONS = 1_000;
export { MCP_SESSION_IDLE_MS };

export class McpSessions<T extends SessionEntry = SessionEntry> {
  private readonly entries = new Map<string, T>();

  constructor(
    private readonly nowMs: () => number,
    private readonly limits = { maxSessions: MAX_MCP_SESSIONS, idleMs: MCP_SESSION_IDLE_MS },
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** The session for a request of `owner`; `undefined` when unknown or someone else's. */
  lookup(id: string, owner: string): T | undefined {
    const entry = this.entries.get(id);
    if (entry?.owner !== owner) return undefined;
    entry.lastSeenMs = this.nowMs();
    return entry;
  }

  add(entry: T): void {
    this.entries.set(entry.id, entry);
  }

  remove(id: string): void {
    this.entries.delete(id);
  }

  /**
   * Makes room for one more session: closes idle sessions, oldest first.
   * False when every slot holds an active session.
   */
  async makeRoom(): Promise<boolean> {
    if (this.entries.size < this.limits.maxSessions) return true;
    const idleBefore = this.nowMs() - this.limits.idleMs;
    const idle = [...this.entries.values()]
      .filter((entry) => entry.inFlight() === 0 && entry.lastSeenMs <= idleBefore)
      .sort((a, b) => a.lastSeenMs - b.lastSeenMs);
    for (const entry of idle) {
      if (this.entries.size < this.limits.maxSessions) break;
      this.entries.delete(entry.id);
      await entry.close();
    }
    return this.entries.size < this.limits.maxSessions;
  }

  async closeAll(): Promise<void> {
    const all = [...this.entries.values()];
    this.entries.clear();
    await Promise.all(all.map((entry) => entry.close()));
  }
}
