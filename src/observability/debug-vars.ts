/**
 * The `/debug/vars` view of a metrics registry: expvar-like JSON that a
 * person or a test can read without a Prometheus parser.
 *
 * Shape: a metric without labels is a number; a metric with one label is an
 * object keyed by that label's value; more labels join as `a=x,b=y`. A
 * histogram keeps only `{count, sum}` per series (buckets live in `/metrics`).
 */
import type { Registry } from 'prom-client';

export type DebugValue = number | { count: number; sum: number };
export type DebugVar = DebugValue | Record<string, DebugValue>;

export interface ProcessVars {
  readonly rss_bytes: number;
  readonly uptime_s: number;
}

export interface DebugVars {
  readonly [metric: string]: DebugVar | ProcessVars;
  readonly process: ProcessVars;
}

/** Reads the process figures once per request; injectable so tests stay deterministic. */
export type ProcessProbe = () => ProcessVars;

export const processProbe: ProcessProbe = () => ({
  rss_bytes: process.memoryUsage.rss(),
  uptime_s: Math.round(process.uptime()),
});

export async function debugVars(
  registry: Registry,
  probe: ProcessProbe = processProbe,
): Promise<DebugVars> {
  const vars: Record<string, DebugVar | ProcessVars> = {};
  for (const metric of await registry.getMetricsAsJSON()) {
    // prom-client's typings declare a numeric enum, but the runtime value is the string.
    const isHistogram = (metric.type as unknown as string) === 'histogram';
    const values = metric.values.map(withoutProcessLabels);
    vars[metric.name] = isHistogram ? histogramVar(metric.name, values) : plainVar(values);
  }
  vars.process = probe();
  return vars as DebugVars;
}

interface SeriesValue {
  value: number;
  labels: Partial<Record<string, string | number>>;
  metricName?: string;
}

/**
 * Labels every series of this process carries (the replica's, issue 16):
 * they tell processes apart on a Prometheus server scraping several, but
 * `/debug/vars` is one process's own view, so its shape stays the same.
 */
const PROCESS_LABELS: ReadonlySet<string> = new Set(['replica']);

function withoutProcessLabels<T extends { labels: SeriesValue['labels'] }>(series: T): T {
  const labels = Object.fromEntries(
    Object.entries(series.labels).filter(([name]) => !PROCESS_LABELS.has(name)),
  );
  return { ...series, labels };
}

function seriesKey(labels: SeriesValue['labels'], skip?: string): string {
  return Object.entries(labels)
    .filter(([name]) => name !== skip)
    .map(([name, value]) => `${name}=${String(value)}`)
    .join(',');
}

function labelKey(labels: SeriesValue['labels'], skip?: string): string | undefined {
  const entries = Object.entries(labels).filter(([name]) => name !== skip);
  if (entries.length === 0) return undefined;
  if (entries.length === 1) return String(entries[0]?.[1]);
  return seriesKey(labels, skip);
}

function plainVar(values: readonly SeriesValue[]): DebugVar {
  const unlabelled = values.length === 1 && labelKey(values[0]?.labels ?? {}) === undefined;
  if (values.length === 0) return 0;
  if (unlabelled) return values[0]?.value ?? 0;
  const byLabel: Record<string, number> = {};
  for (const series of values) byLabel[labelKey(series.labels) ?? ''] = series.value;
  return byLabel;
}

function histogramVar(name: string, values: readonly SeriesValue[]): DebugVar {
  const byLabel: Record<string, { count: number; sum: number }> = {};
  for (const series of values) {
    const part =
      series.metricName === `${name}_count`
        ? 'count'
        : series.metricName === `${name}_sum`
          ? 'sum'
          : undefined;
    if (part === undefined) continue;
    const key = labelKey(series.labels, 'le') ?? '';
    const entry = (byLabel[key] ??= { count: 0, sum: 0 });
    entry[part] = series.value;
  }
  const keys = Object.keys(byLabel);
  if (keys.length === 1 && keys[0] === '') return byLabel[''] ?? { count: 0, sum: 0 };
  return byLabel;
}
