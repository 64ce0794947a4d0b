/**
 * One level of a cycle benchmark, the same for every contestant: `agents`
 * run `cyclesPerAgent` cycles each, back to back, all at once. Cycles per
 * second count whole cycles over the level's wall time. A level may be
 * gathered over several passes (`LevelSamples`), so contestants can take
 * turns and this machine's drift lands on each alike.
 */
import { elapsedMs, round, runPool, summarize, type LatencySummary } from './stats.js';

export interface CycleLevel {
  agents: number;
  cycles: number;
  perSecond: number;
  latency: LatencySummary;
  failures: number;
}

/** What a cycle benchmark drives: cycles of its agents, one agent's at a time. */
export interface Contestant {
  /** Resolves true when that agent's cycle ended as it should. */
  cycle(agent: number): Promise<boolean>;
  /** Failures seen outside the cycles themselves (a responder's), so far. */
  otherFailures(): number;
  close(): Promise<void>;
}

export class LevelSamples {
  private readonly ms: number[] = [];
  private wallMs = 0;
  private failures = 0;

  constructor(private readonly agents: number) {}

  /** Runs `cyclesPerAgent` cycles on each of the first `agents` agents at once. */
  async pass(contestant: Contestant, cyclesPerAgent: number): Promise<void> {
    const failedBefore = contestant.otherFailures();
    const started = performance.now();
    await runPool(this.agents, this.agents, async (agent) => {
      for (let i = 0; i < cyclesPerAgent; i++) {
        const t0 = performance.now();
        const ok = await contestant.cycle(agent);
        this.ms.push(elapsedMs(t0));
        if (!ok) this.failures++;
      }
    });
    this.wallMs += elapsedMs(started);
    this.failures += contestant.otherFailures() - failedBefore;
  }

  level(): CycleLevel {
    return {
      agents: this.agents,
      cycles: this.ms.length,
      perSecond: round((this.ms.length / this.wallMs) * 1000, 1),
      latency: summarize(this.ms),
      failures: this.failures,
    };
  }
}
