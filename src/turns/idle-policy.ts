/**
 * Stopping idle agents (issue 13): an agent with no turn (a reserved one
 * included), no open clarification, no consent or action request and no due
 * follow-up for `idleMs` is stopped. That is no failure: the session stays
 * idle, and its next prompt starts the agent again (`session/load` when it
 * offers it). A detached answer's delivery reserves its turn under the same
 * lock as the verdict, and waits for a stop decided before it (`settled`).
 *
 * Each started agent has one deadline, armed when it opens its session and
 * again at every turn's end. When it fires, the decision is taken under the
 * session lock, the lock admission takes too: a message admitted before it
 * finds the session running (no stop), one admitted after finds the stop
 * under way and waits for it before starting the agent again
 * (`settled`). A deadline that finds the agent busy is armed again.
 */
import type { Timers } from '../support/index.js';
import { getSession, hasActiveClarification, hasReservedTurn } from '../store/index.js';
import type { TurnsDeps } from './context.js';

type Verdict = 'stop' | 'busy' | 'gone';

export class IdleStops {
  private readonly deadlines = new Map<string, { cancel(): void }>();
  private readonly stopping = new Map<string, Promise<void>>();

  constructor(
    private readonly timers: Timers,
    readonly idleMs: number,
  ) {}

  /** (Re)starts the session's idle deadline; its agent has just become idle or started. */
  arm(deps: TurnsDeps, sessionId: string): void {
    this.deadlines.get(sessionId)?.cancel();
    const deadline = this.timers.setTimeout(() => {
      this.deadlines.delete(sessionId);
      void this.expire(deps, sessionId).catch((error: unknown) => {
        deps.logger.warn({ err: error, session_id: sessionId }, 'idle stop failed');
      });
    }, this.idleMs);
    this.deadlines.set(sessionId, deadline);
  }

  /** The agent is gone (exited, stopped, deleted): no deadline is left for it. */
  forget(sessionId: string): void {
    this.deadlines.get(sessionId)?.cancel();
    this.deadlines.delete(sessionId);
  }

  /** Whether an idle stop of the session's agent is under way: it must not take a prompt. */
  isStopping(sessionId: string): boolean {
    return this.stopping.has(sessionId);
  }

  /** Resolves once no idle stop of the session's agent is under way (bounded by the stop). */
  async settled(sessionId: string): Promise<void> {
    await this.stopping.get(sessionId);
  }

  close(): void {
    for (const deadline of this.deadlines.values()) deadline.cancel();
    this.deadlines.clear();
  }

  private async expire(deps: TurnsDeps, sessionId: string): Promise<void> {
    if (!deps.host.isStarted(sessionId)) return;
    let stopped: (() => void) | undefined;
    try {
      const verdict = await deps.sessions.write(sessionId, async ({ tx }): Promise<Verdict> => {
        const session = await getSession(tx, sessionId);
        if (!session) return 'gone';
        const idle =
          session.state === 'idle' &&
          deps.host.readiness(sessionId).ready &&
          deps.userInputs.pendingActionOf(sessionId) === null &&
          deps.userInputs.queuedFollowUps(sessionId).length === 0 &&
          !(await hasActiveClarification(tx, sessionId)) &&
          // A detached answer's prompt may be on its way: the reservation is taken under this lock.
          !(await hasReservedTurn(tx, sessionId));
        if (!idle) return 'busy';
        // Still under the lock: an admission after this point sees the stop.
        this.stopping.set(
          sessionId,
          new Promise<void>((resolve) => {
            stopped = resolve;
          }),
        );
        return 'stop';
      });
      if (verdict === 'busy') this.arm(deps, sessionId);
      if (verdict !== 'stop') return;
      deps.logger.info({ session_id: sessionId, idle_ms: this.idleMs }, 'stopping an idle agent');
      await deps.host.stop(sessionId);
    } catch (error) {
      // Whether the verdict's commit or the stop failed, the agent may still run: it keeps a deadline.
      this.arm(deps, sessionId);
      throw error;
    } finally {
      // Also when the verdict's commit failed: admissions and deliveries wait on this.
      if (stopped) {
        this.stopping.delete(sessionId);
        stopped();
      }
    }
  }
}
