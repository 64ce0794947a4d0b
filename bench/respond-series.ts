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

/** One server, one session to ask in, one client to respond with. */
export interface RespondTarget {
  instance: ClarionInstance;
  client: BenchClient;
  sessionId: string;
}

/**
 * Two series taken in alternation, one sample of each per round, in the
 * order ABBA ABBA …, so that the machine's drift during the run (seen here
 * at 1.5× within minutes) lands on both sides of their ratio alike, and
 * neither side always runs right after the other.
 */
export async function interleavedSeries(
  first: RespondTarget,
  second: RespondTarget,
  label: string,
  counts: { warmup: number; samples: number },
): Promise<[SeriesResult, SeriesResult]> {
  const a = new SampleSeries(counts.warmup);
  const b = new SampleSeries(counts.warmup);
  for (let index = 0; index < counts.warmup + counts.samples; index++) {
    const tag = `${label} ${index}`;
    if (index % 2 === 0) {
      await a.take(first, tag);
      await b.take(second, tag);
    } else {
      await b.take(second, tag);
      await a.take(first, tag);
    }
  }
  return [a.result(), b.result()];
}

class SampleSeries {
  private readonly samples: number[] = [];
  private failures = 0;
  private taken = 0;

  constructor(private readonly warmup: number) {}

  async take({ instance, client, sessionId }: RespondTarget, tag: string): Promise<void> {
    const { pendingId, done } = await instance.ask(sessionId, tag);
    const started = performance.now();
    const reply = await instance.respond(client, pendingId);
    const ms = elapsedMs(started);
    const outcome = await done;
    if (reply.status !== 200 || !outcome.ok || outcome.outcome !== 'answered') this.failures++;
    if (this.taken++ >= this.warmup) this.samples.push(ms);
  }

  result(): SeriesResult {
    return { latency: summarize(this.samples), failures: this.failures };
  }
}
