/**
 * Sequential responds against one live waiter at a time: ask in-process,
 * then time only the REST respond (claim plus delivery to the waiter, which
 * completes before the 200). Every sample is checked: a non-200 or an agent
 * that did not get the answer counts as a failure.
 */
import type { ClarionInstance } from './clarion-instance.js';
import type { BenchClient } from './http-client.js';
import { elapsedMs, summarize, type LatencySummary } from './stats.js';

export interface SeriesResult {
  latency: LatencySummary;
  failures: number;
}

export async function respondSeries(
  instance: ClarionInstance,
  client: BenchClient,
  sessionId: string,
  label: string,
  counts: { warmup: number; samples: number },
): Promise<SeriesResult> {
  const samples: number[] = [];
  let failures = 0;
  for (let index = 0; index < counts.warmup + counts.samples; index++) {
    const { pendingId, done } = await instance.ask(sessionId, `${label} ${index}`);
    const started = performance.now();
    const reply = await instance.respond(client, pendingId);
    const ms = elapsedMs(started);
    const outcome = await done;
    if (reply.status !== 200 || !outcome.ok || outcome.outcome !== 'answered') failures++;
    if (index >= counts.warmup) samples.push(ms);
  }
  return { latency: summarize(samples), failures };
}
