/**
 * The closing table: every measured ratio beside its goal from issue 7, with
 * a pass mark where the issue sets a goal. Benchmarks not measured yet get a
 * row that says so, so the table never silently shrinks.
 */
import type { FlatnessResult } from './flatness.js';
import type { FloorResult } from './floor.js';
import type { PeerResult } from './peer.js';

export interface GoalRow {
  benchmark: string;
  metric: string;
  value: number | string;
  goal: string;
  /** null where the issue asks to report, not to meet a bound. */
  pass: boolean | null;
}

const within = (low: number, high: number) => (value: number) => value >= low && value <= high;
const atLeast = (bound: number) => (value: number) => value >= bound;
const atMost = (bound: number) => (value: number) => value <= bound;

function row(
  benchmark: string,
  metric: string,
  value: number,
  goal: string,
  check?: (value: number) => boolean,
): GoalRow {
  return { benchmark, metric, value, goal, pass: check ? check(value) : null };
}

export function flatnessRows(result: FlatnessResult): GoalRow[] {
  const { driver, ratios, small, large } = result;
  const flat = within(0.85, 1.15);
  return [
    row(`1 flatness ${driver}`, 'respond p50 1M/1k', ratios.largeVsSmall.p50, '0.85–1.15', flat),
    row(`1 flatness ${driver}`, 'respond p99 1M/1k', ratios.largeVsSmall.p99, '0.85–1.15', flat),
    row(
      `1 flatness ${driver}`,
      'failed responds',
      small.failures + large.failures,
      '0',
      (v) => v === 0,
    ),
    row(`2 index ${driver}`, 'bare index only: p50 vs 1k', ratios.bareOnlyVsSmall.p50, 'report'),
    row(`2 index ${driver}`, 'bare index only: p99 vs 1k', ratios.bareOnlyVsSmall.p99, 'report'),
    row(
      `2 index ${driver}`,
      'session-leading only: p50 vs 1k',
      ratios.sessionOnlyVsSmall.p50,
      'report (scan)',
    ),
    row(
      `2 index ${driver}`,
      'session-leading only: p99 vs 1k',
      ratios.sessionOnlyVsSmall.p99,
      'report (scan)',
    ),
    {
      benchmark: `2 index ${driver}`,
      metric: 'claim access at 1M (all / bare / session-leading)',
      value: [result.large, result.bareIndexOnly, result.sessionIndexOnly]
        .map((s) => s.claimAccess)
        .join(' / '),
      goal: 'seek / seek / (skip) scan',
      pass:
        result.large.claimAccess === 'seek' &&
        result.bareIndexOnly.claimAccess === 'seek' &&
        result.sessionIndexOnly.claimAccess !== 'seek',
    },
  ];
}

export function floorRows(result: FloorResult, concurrency: number): GoalRow[] {
  const { ratios } = result;
  return [
    row(
      '3 floor',
      `throughput at ${concurrency} vs floor`,
      ratios.throughputMany,
      '≥ 0.5',
      atLeast(0.5),
    ),
    row('3 floor', `p99 at ${concurrency} vs floor`, ratios.p99Many, '≤ 2', atMost(2)),
    row('3 floor', 'p50 at 1 vs floor', ratios.p50Single, '≤ 2', atMost(2)),
    row('3 floor', 'throughput at 1 vs floor', ratios.throughputSingle, 'report'),
    row('3 floor', `CPU ms per respond: Clarion`, result.clarion.many.cpuMsPerRespond, 'report'),
    row('3 floor', `CPU ms per respond: floor`, result.floor.many.cpuMsPerRespond, 'report'),
    row('3 floor', 'CPU per respond vs floor', ratios.cpuPerRespond, 'report'),
    row(
      '3 floor',
      'failed responds',
      result.clarion.single.failures + result.clarion.many.failures,
      '0',
      (v) => v === 0,
    ),
  ];
}

export function peerRows(result: PeerResult, concurrency: number): GoalRow[] {
  const { clarion } = result;
  const { clarionVsLangGraph: vs, historyRetention: kept } = result.ratios;
  const failures =
    clarion.empty.single.failures +
    clarion.empty.many.failures +
    clarion.withHistory.single.failures +
    clarion.withHistory.many.failures;
  const h = `${result.history / 1000}k`;
  return [
    row('4 full cycle', 'cycles/s, 1 agent', clarion.empty.single.perSecond, 'report'),
    row('4 full cycle', 'p99 ms, 1 agent', clarion.empty.single.latency.p99Ms, 'report'),
    row('4 full cycle', `cycles/s, ${concurrency} agents`, clarion.empty.many.perSecond, 'report'),
    row(
      '4 full cycle',
      `p99 ms, ${concurrency} agents`,
      clarion.empty.many.latency.p99Ms,
      'report',
    ),
    row('4 full cycle', 'failed cycles', failures, '0', (v) => v === 0),
    row('5 peer', 'Clarion/LangGraph cycles/s at 1', vs.emptySingle, '≥ 5', atLeast(5)),
    row('5 peer', `Clarion/LangGraph cycles/s at ${concurrency}`, vs.emptyMany, '≥ 5', atLeast(5)),
    row('5 peer', `… with ${h} finished, at 1`, vs.historySingle, '≥ 5', atLeast(5)),
    row('5 peer', `… with ${h} finished, at ${concurrency}`, vs.historyMany, '≥ 5', atLeast(5)),
    row(
      '5 peer',
      `Clarion cycles/s ${h}/empty at 1`,
      kept.clarionSingle,
      'no loss (≥ 0.85)',
      atLeast(0.85),
    ),
    row(
      '5 peer',
      `Clarion cycles/s ${h}/empty at ${concurrency}`,
      kept.clarionMany,
      'no loss (≥ 0.85)',
      atLeast(0.85),
    ),
    row('5 peer', `LangGraph cycles/s ${h}/empty at 1`, kept.langgraphSingle, 'report'),
    row('5 peer', `LangGraph cycles/s ${h}/empty at ${concurrency}`, kept.langgraphMany, 'report'),
  ];
}

export const NOT_MEASURED: GoalRow[] = [
  {
    benchmark: '6 pending scale',
    metric: 'RSS with 10k pending + 1k waiters; p99 vs 10 pending',
    value: 'not measured yet',
    goal: 'RSS < 300 MB; p99 ≤ 1.5',
    pass: null,
  },
  {
    benchmark: '7 load (2 min)',
    metric: 'lost / double / 5xx; RSS last min vs first',
    value: 'not measured yet',
    goal: '0 / 0 / 0; within 10 %',
    pass: null,
  },
];

/** The rows as a Markdown table, for the terminal and for bench/RESULTS.md. */
export function markdownTable(rows: readonly GoalRow[]): string {
  const lines = [
    '| benchmark | metric | measured | goal | met |',
    '| --- | --- | --- | --- | --- |',
  ];
  for (const r of rows) {
    const mark = r.pass === null ? '—' : r.pass ? 'yes' : '**no**';
    lines.push(`| ${r.benchmark} | ${r.metric} | ${String(r.value)} | ${r.goal} | ${mark} |`);
  }
  return lines.join('\n');
}
