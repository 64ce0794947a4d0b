/**
 * What the load benchmark measures beside its goals, to say where time went:
 * the stages of each answered cycle, the slowest cycles one by one, the
 * event-loop delay of the server and of the load generator, and the size
 * the SQLite WAL reached.
 */
import { statSync } from 'node:fs';
import type { ResponderTiming } from './load-responders.js';
import { round, summarize, type LatencySummary } from './stats.js';

/**
 * Where answered cycles spent their time: from the agent's call to a
 * responder seeing the question, and from there to the agent holding the
 * answer; beside them, the respond itself (seen to its first 200, which
 * comes after the hand-off to the agent).
 */
export interface CycleStages {
  askToSeen: LatencySummary;
  seenToAgent: LatencySummary;
  respond: LatencySummary;
}

export interface LoopDelay {
  p99Ms: number;
  maxMs: number;
}

/** The largest size `path` had, in MiB, sampled every `everyMs` until stopped. */
export function watchFileSize(path: string, everyMs: number): { stop(): number } {
  let maxBytes = 0;
  const take = () => {
    maxBytes = Math.max(maxBytes, statSync(path, { throwIfNoEntry: false })?.size ?? 0);
  };
  const timer = setInterval(take, everyMs);
  return {
    stop() {
      clearInterval(timer);
      take();
      return round(maxBytes / 2 ** 20, 1);
    },
  };
}

export interface AnsweredCycle {
  agent: number;
  cycle: number;
  pendingId: string;
  startedAtMs: number;
  endedAtMs: number;
}

export interface SlowCycle {
  agent: number;
  cycle: number;
  startedAtS: number;
  /** From the agent's call to the server writing the question (server clock, same machine). */
  askToWrittenMs: number;
  askToSeenMs: number;
  seenToAgentMs: number;
  respondMs: number;
}

const SLOWEST = 8;

export function slowestCycles(
  cycles: readonly AnsweredCycle[],
  timings: ReadonlyMap<string, ResponderTiming>,
  writtenAtMs: ReadonlyMap<string, number>,
  runStartedAtMs: number,
): SlowCycle[] {
  return [...cycles]
    .sort((a, b) => b.endedAtMs - b.startedAtMs - (a.endedAtMs - a.startedAtMs))
    .slice(0, SLOWEST)
    .map((c) => {
      const timing = timings.get(c.pendingId);
      const seen = timing?.seenAtMs ?? Number.NaN;
      return {
        agent: c.agent,
        cycle: c.cycle,
        startedAtS: round((c.startedAtMs - runStartedAtMs) / 1000, 1),
        askToWrittenMs: Math.round(
          (writtenAtMs.get(c.pendingId) ?? Number.NaN) - (performance.timeOrigin + c.startedAtMs),
        ),
        askToSeenMs: Math.round(seen - c.startedAtMs),
        seenToAgentMs: Math.round(c.endedAtMs - seen),
        respondMs: Math.round((timing?.repliedAtMs ?? Number.NaN) - seen),
      };
    });
}

export function cycleStages(
  cycles: readonly AnsweredCycle[],
  timings: ReadonlyMap<string, ResponderTiming>,
): CycleStages {
  const askToSeen: number[] = [];
  const seenToAgent: number[] = [];
  const respond: number[] = [];
  for (const cycle of cycles) {
    const timing = timings.get(cycle.pendingId);
    if (timing?.repliedAtMs === undefined) continue;
    askToSeen.push(timing.seenAtMs - cycle.startedAtMs);
    seenToAgent.push(cycle.endedAtMs - timing.seenAtMs);
    respond.push(timing.repliedAtMs - timing.seenAtMs);
  }
  return {
    askToSeen: summarize(askToSeen),
    seenToAgent: summarize(seenToAgent),
    respond: summarize(respond),
  };
}

/** The server's event-loop delay since its previous scrape (prom-client resets it on each). */
export async function serverLoopDelay(url: string): Promise<{ p99Ms: number; maxMs: number }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const seconds = (name: string) =>
    Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
  return {
    p99Ms: round(seconds('nodejs_eventloop_lag_p99_seconds') * 1000, 1),
    maxMs: round(seconds('nodejs_eventloop_lag_max_seconds') * 1000, 1),
  };
}
