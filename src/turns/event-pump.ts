/**
 * Feeds agent reports into the turns services one at a time per session, in
 * the order the host reported them, so a turn's output is always written
 * before its end. A failing handler is logged and never stops later events.
 * Each event goes with whether a deletion of its session was under way when
 * the host reported it (`handleRuntimeEvent`'s `Reported`).
 */
import type { RuntimeEvent } from '../agents/index.js';
import type { TurnsDeps } from './context.js';
import { handleRuntimeEvent } from './runtime-events.js';

export class RuntimeEventPump {
  private readonly chains = new Map<string, Promise<void>>();
  private readonly unsubscribe: () => void;

  constructor(private readonly deps: TurnsDeps) {
    this.unsubscribe = deps.host.subscribe((event) => {
      this.enqueue(event);
    });
  }

  /** A fenced session's rows belong to another replica: its old agent's reports change nothing. */
  private fenced(event: RuntimeEvent): boolean {
    return this.deps.leases?.isFenced(event.sessionId) === true;
  }

  private enqueue(event: RuntimeEvent): void {
    if (this.fenced(event)) return;
    // Known now, not when its turn comes: a deletion may have ended by then, behind a report
    // the storage made wait, and the turn's end it caused must still be judged by its outcome.
    const reported = { duringDeletion: this.deps.cancellations.deletionUnderWay(event.sessionId) };
    const previous = this.chains.get(event.sessionId) ?? Promise.resolve();
    const next = previous
      .then(() => (this.fenced(event) ? undefined : handleRuntimeEvent(this.deps, event, reported)))
      .catch((error: unknown) => {
        this.deps.logger.error(
          { err: error, event: event.type, session_id: event.sessionId },
          'agent event failed',
        );
      });
    this.chains.set(event.sessionId, next);
    void next.then(() => {
      if (this.chains.get(event.sessionId) === next) this.chains.delete(event.sessionId);
    });
  }

  /** Resolves once every event reported so far has been handled. */
  async idle(): Promise<void> {
    while (this.chains.size > 0) await Promise.all(this.chains.values());
  }

  stop(): void {
    this.unsubscribe();
  }
}
