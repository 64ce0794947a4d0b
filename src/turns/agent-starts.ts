/**
 * Agent starts that run after their admission has answered (issue 13): a
 * message to a session whose agent is not running is queued, the session
 * shows `starting`, and the start goes on here, bounded by the host's start
 * timeout. One start per session at a time; each is tracked so shutdown and
 * tests can wait for those under way.
 */
import { KeyedSerial } from '../support/index.js';

export class AgentStarts {
  private readonly running = new Map<string, Promise<void>>();
  private readonly sections = new KeyedSerial();

  /**
   * Runs `work` after the session's start or exit section under way, if any.
   * An agent's start (from its lease to its process) and the handling of an
   * agent's exit go one at a time per session, so an exit handled late finds
   * the newer agent running and ends nothing of it (its credential, its
   * lease). Each section is bounded by what it awaits (the host's start
   * timeout, the store's bounds).
   */
  serially<T>(sessionId: string, work: () => Promise<T>): Promise<T> {
    return this.sections.run(sessionId, work);
  }

  /** Runs `start` (which never rejects) for the session unless one is under way. */
  begin(sessionId: string, start: () => Promise<void>): Promise<void> | undefined {
    if (this.running.has(sessionId)) return undefined;
    const run = start().finally(() => {
      if (this.running.get(sessionId) === run) this.running.delete(sessionId);
    });
    this.running.set(sessionId, run);
    return run;
  }

  /** The start under way for the session, if any. */
  current(sessionId: string): Promise<void> | undefined {
    return this.running.get(sessionId);
  }

  /** Resolves once every start begun so far (and those they began) is over. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running.values()]);
  }
}
