/**
 * Requests whose agent's call lost its connection, waiting for the turn
 * that asked to end. Over MCP an agent's HTTP connection closes the moment
 * its process dies, before anyone sees the exit: swept at once, such a
 * request would end `swept`, and the turn's end could no longer say the
 * agent stopped. So the sweep waits for the turn's end, which ends the
 * request itself when the agent exited, and sweeps it otherwise: the agent
 * only dropped its connection and lives on.
 *
 * Invariants: each wait ends once, by the turn's end (`endTurn`), its bound
 * (`sweep` runs), or the request settling otherwise (`forget`); a request the
 * turn's end has named (`named`) loses its bound, since its note already
 * says how it ends, and waits for that end alone (its deadline still runs).
 */
import type { Timers } from '../support/index.js';

interface Waiting {
  readonly sessionId: string;
  bound: { cancel(): void } | undefined;
}

export class LostCalls {
  private readonly waiting = new Map<string, Waiting>();

  constructor(
    private readonly timers: Timers,
    private readonly waitMs: number,
  ) {}

  /** `sweep` runs after the bound unless the turn's end or a settlement comes first. */
  wait(requestId: string, sessionId: string, sweep: () => void): void {
    this.forget(requestId);
    const entry: Waiting = { sessionId, bound: undefined };
    entry.bound = this.timers.setTimeout(() => {
      this.waiting.delete(requestId);
      sweep();
    }, this.waitMs);
    this.waiting.set(requestId, entry);
  }

  /** The turn's end wrote this request's note: only that end may end it now. */
  named(requestId: string): void {
    const entry = this.waiting.get(requestId);
    entry?.bound?.cancel();
    if (entry) entry.bound = undefined;
  }

  /** The session's turn ended: the requests that waited for it, to sweep unless it ended them. */
  endTurn(sessionId: string): string[] {
    const ended = [...this.waiting].filter(([, entry]) => entry.sessionId === sessionId);
    for (const [requestId] of ended) this.forget(requestId);
    return ended.map(([requestId]) => requestId);
  }

  forget(requestId: string): void {
    this.waiting.get(requestId)?.bound?.cancel();
    this.waiting.delete(requestId);
  }

  close(): void {
    for (const requestId of [...this.waiting.keys()]) this.forget(requestId);
  }
}
