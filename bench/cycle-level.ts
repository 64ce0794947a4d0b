/**
 * One level of a cycle benchmark, the same for every contestant: `agents`
 * run `cyclesPerAgent` cycles each, back to back, all at once. Cycles per
 * second count whole cycles over the level's wall time.
 */
import { elapsedMs, round, runPool, summarize, type LatencySummary } from './stats.js';

export interface CycleLevel {
  agents: number;
  cycles: number;
  perSecond: number;
  latency: LatencySummary;
  failures: number;
}

/** Runs the level; `cycle(agent)` resolves true when that cycle ended as it should. */
export async function runCycleLevel(
  agents: number,
  cyclesPerAgent: number,
  cycle: (agent: number) => Promise<boolean>,
): Promise<CycleLevel> {
  const ms: number[] = [];
  let failures = 0;
  const started = performance.now();
  await runPool(agents, agents, async (agent) => {
    for (let i = 0; i < cyclesPerAgent; i++) {
      const t0 = performance.now();
      const ok = await cycle(agent);
      ms.push(elapsedMs(t0));
      if (!ok) failures++;
    }
  });
  const wallMs = elapsedMs(started);
  return {
    agents,
    cycles: ms.length,
    perSecond: round((ms.length / wallMs) * 1000, 1),
    latency: summarize(ms),
    failures,
  };
}
