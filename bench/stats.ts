/**
 * Latency summaries. Percentiles use the nearest-rank method on the sorted
 * samples, so p99 of 200 samples is the second-largest value: with small
 * sample counts the tail is noisy, which is why the report keeps the count.
 */
export interface LatencySummary {
  samples: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  maxMs: number;
}

/** NaN throughout for no samples, so an empty stage shows as missing rather than as zero. */
export function summarize(samplesMs: readonly number[]): LatencySummary {
  if (samplesMs.length === 0) {
    return {
      samples: 0,
      p50Ms: Number.NaN,
      p99Ms: Number.NaN,
      meanMs: Number.NaN,
      maxMs: Number.NaN,
    };
  }
  const sorted = [...samplesMs].sort((a, b) => a - b);
  const total = sorted.reduce((sum, value) => sum + value, 0);
  return {
    samples: sorted.length,
    p50Ms: round(percentile(sorted, 50)),
    p99Ms: round(percentile(sorted, 99)),
    meanMs: round(total / sorted.length),
    maxMs: round(sorted[sorted.length - 1] ?? 0),
  };
}

function percentile(sorted: readonly number[], p: number): number {
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? Number.NaN;
}

/** Milliseconds since `start` (a `performance.now()` reading). */
export function elapsedMs(start: number): number {
  return performance.now() - start;
}

export function round(value: number, digits = 3): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** `a / b`, rounded; NaN when either side is missing, so a broken run shows as such. */
export function ratio(a: number, b: number): number {
  return b > 0 && Number.isFinite(a) ? round(a / b) : Number.NaN;
}

/** Runs `work(i)` for i in [0, count) with at most `concurrency` in flight. */
export async function runPool(
  count: number,
  concurrency: number,
  work: (index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const index = next++;
      await work(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
}
