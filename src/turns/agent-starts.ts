/**
 * Agent starts that run after their admission has answered (issue 13): a
 * message to a session whose agent is not running is queued, the session
 * shows `starting`, and the start goes on here, bounded by the host's start
 * timeout. One start per `starting` session at a time, which the session's
 * later messages join; each is tracked until its queue's drain is over, so
 * shutdown and tests can wait for those under way.
 */
import { KeyedSerial } from '../support/index.js';

export class AgentStarts {
  /**
   * Starts a message may join: begun, their session still `starting`. A start
   * leaves this map in the very session write that moves its session out of
   * `starting` (`leftStarting`), so an admission that reads the session idle
   * and makes it `starting` again never finds the finished start here and
   * begins its own.
   */
  private readonly joinable = new Map<string, Promise<void>>();
  /** Every start not over yet, its queue's drain included: what `idle` waits for. */
  private readonly running = new Set<Promise<void>>();
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

  /**
   * Runs `start` (which never rejects) for the session unless a joinable one
   * is under way. `start` calls `leftStarting` inside the session write that
   * moves its session out of `starting`; from then on it may still run the
   * queue, but nobody joins it.
   */
  begin(
    sessionId: string,
    start: (leftStarting: () => void) => Promise<void>,
  ): Promise<void> | undefined {
    if (this.joinable.has(sessionId)) return undefined;
    const entry: { run?: Promise<void> } = {};
    const leftStarting = () => {
      if (entry.run && this.joinable.get(sessionId) === entry.run) this.joinable.delete(sessionId);
    };
    const run = start(leftStarting).finally(() => {
      leftStarting();
      this.running.delete(run);
    });
    entry.run = run;
    this.joinable.set(sessionId, run);
    this.running.add(run);
    return run;
  }

  /** The joinable start of the session (its session still `starting`), if any. */
  current(sessionId: string): Promise<void> | undefined {
    return this.joinable.get(sessionId);
  }

  /** Resolves once every start begun so far (and those they began) is over. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }
}
