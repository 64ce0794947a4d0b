/**
 * Agent starts that run after their admission has answered (issue 13): a
 * message to a session whose agent is not running is queued, the session
 * shows `starting`, and the start goes on here, bounded by the host's start
 * timeout. One start per session at a time; each is tracked so shutdown and
 * tests can wait for those under way.
 */
export class AgentStarts {
  private readonly running = new Map<string, Promise<void>>();

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
