/**
 * The closing table: every measured ratio beside its goal from issue 7, with
 * a pass mark where the issue sets a goal.
 */
import { flatnessFailures, type FlatnessResult } from './flatness.js';
import type { FloorResult } from './floor.js';
import type { LoadResult } from './load.js';
import type { PeerResult } from './peer.js';
import type { PendingResult } from './pending-scale.js';
import type { ReplicasResult } from './replicas.js';

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
  const { driver, ratios } = result;
  const flat = within(0.85, 1.15);
  return [
    row(`1 flatness ${driver}`, 'respond p50 1M/1k', ratios.largeVsSmall.p50, '0.85–1.15', flat),
    row(`1 flatness ${driver}`, 'respond p99 1M/1k', ratios.largeVsSmall.p99, '0.85–1.15', flat),
    row(`1 flatness ${driver}`, 'failed responds', flatnessFailures(result), '0', (v) => v === 0),
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

/**
 * Benchmark 3. The goals are set against the same-work floor (Clarion's own
 * overhead over the contract's durable steps) and, for CPU, against the bare
 * floor too; the bare floor's other ratios are kept for comparison with
 * earlier runs.
 */
export function floorRows(result: FloorResult, concurrency: number): GoalRow[] {
  const { sameWork: same, bare } = result.ratios;
  const b = '3 floor';
  const failures = [result.clarion, result.sameWork, result.bare]
    .flatMap((side) => [side.single.failures, side.many.failures])
    .reduce((sum, count) => sum + count, 0);
  return [
    row(b, 'respond CPU vs same-work floor', same.cpuPerRespond, '≤ 2', atMost(2)),
    row(b, 'respond CPU vs bare floor', bare.cpuPerRespond, '≤ 4', atMost(4)),
    row(
      b,
      `throughput at ${concurrency} vs same-work floor`,
      same.throughputMany,
      '≥ 0.5',
      atLeast(0.5),
    ),
    row(b, `p99 at ${concurrency} vs same-work floor`, same.p99Many, '≤ 2', atMost(2)),
    row(b, 'p50 at 1 vs same-work floor', same.p50Single, 'report'),
    row(b, 'throughput at 1 vs same-work floor', same.throughputSingle, 'report'),
    row(b, `throughput at ${concurrency} vs bare floor`, bare.throughputMany, 'report'),
    row(b, `p99 at ${concurrency} vs bare floor`, bare.p99Many, 'report'),
    row(b, 'p50 at 1 vs bare floor', bare.p50Single, 'report'),
    row(b, 'throughput at 1 vs bare floor', bare.throughputSingle, 'report'),
    row(b, 'CPU ms per respond: Clarion', result.clarion.many.cpuMsPerRespond, 'report'),
    row(b, 'CPU ms per respond: same-work floor', result.sameWork.many.cpuMsPerRespond, 'report'),
    row(b, 'CPU ms per respond: bare floor', result.bare.many.cpuMsPerRespond, 'report'),
    row(b, 'failed responds (Clarion and both floors)', failures, '0', (v) => v === 0),
  ];
}

export function peerRows(result: PeerResult, concurrency: number): GoalRow[] {
  const { clarion } = result;
  const {
    clarionVsLangGraph: vs,
    engineVsLangGraph: engine,
    historyRetention: kept,
  } = result.ratios;
  const failures = [
    clarion.empty,
    clarion.withHistory,
    result.engine.empty,
    result.engine.withHistory,
  ]
    .flatMap((levels) => [levels.single.failures, levels.many.failures])
    .reduce((sum, count) => sum + count, 0);
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
    row('4 full cycle', 'failed cycles (full and engine)', failures, '0', (v) => v === 0),
    row('5 peer', 'Clarion/LangGraph cycles/s at 1', vs.emptySingle, '≥ 2', atLeast(2)),
    row('5 peer', `Clarion/LangGraph cycles/s at ${concurrency}`, vs.emptyMany, '≥ 2', atLeast(2)),
    row('5 peer', `… with ${h} finished, at 1`, vs.historySingle, 'report'),
    row('5 peer', `… with ${h} finished, at ${concurrency}`, vs.historyMany, 'report'),
    row(
      '5 peer',
      'engine in-process/LangGraph cycles/s at 1',
      engine.emptySingle,
      '≥ 5',
      atLeast(5),
    ),
    row(
      '5 peer',
      `engine in-process/LangGraph cycles/s at ${concurrency}`,
      engine.emptyMany,
      '≥ 5',
      atLeast(5),
    ),
    row('5 peer', `… engine with ${h} finished, at 1`, engine.historySingle, 'report'),
    row('5 peer', `… engine with ${h} finished, at ${concurrency}`, engine.historyMany, 'report'),
    row('5 peer', `Clarion cycles/s ${h}/empty at 1`, kept.clarionSingle, '≥ 0.95', atLeast(0.95)),
    row(
      '5 peer',
      `Clarion cycles/s ${h}/empty at ${concurrency}`,
      kept.clarionMany,
      '≥ 0.95',
      atLeast(0.95),
    ),
    row('5 peer', `LangGraph cycles/s ${h}/empty at 1`, kept.langgraphSingle, 'report'),
    row('5 peer', `LangGraph cycles/s ${h}/empty at ${concurrency}`, kept.langgraphMany, 'report'),
  ];
}

/** `10000` as `10k`, for metric labels whose sizes differ between full and quick runs. */
function count(n: number): string {
  return n >= 1000 && n % 1000 === 0 ? `${n / 1000}k` : String(n);
}

const zero = (v: number) => v === 0;

export function pendingRows(result: PendingResult): GoalRow[] {
  const { driver, few, many, ratios } = result;
  const b = `6 pending ${driver}`;
  const held = `${count(many.pending)} pending, ${count(many.waiters)} live`;
  return [
    row(b, `server RSS MiB, ${held}`, many.rssMiB.max, '< 300', (v) => v < 300),
    row(b, `respond p99 ${held} / ${few.pending} pending`, ratios.p99, '≤ 1.5', atMost(1.5)),
    row(b, `respond p50 ${held} / ${few.pending} pending`, ratios.p50, 'report'),
    row(b, `server RSS MiB, ${few.pending} pending`, few.rssMiB.max, 'report'),
    row(b, 'failed responds', few.failures + many.failures, '0', zero),
    {
      benchmark: b,
      metric: 'pending bundles counted / held (both levels)',
      value: `${few.counted}/${few.pending}, ${many.counted}/${many.pending}`,
      goal: 'equal',
      pass: few.counted === few.pending && many.counted === many.pending,
    },
    row(b, `inbox page ms, ${count(many.pending)} pending`, many.inboxPageMs, 'report'),
    row(b, `inbox page ms, ${few.pending} pending`, few.inboxPageMs, 'report'),
  ];
}

export function loadRows(result: LoadResult): GoalRow[] {
  const b = `7 load ${driver(result)}`;
  return [
    row(b, 'lost answers', result.lost, '0', zero),
    row(b, 'double deliveries', result.doubles, '0', zero),
    row(b, '5xx responses', result.serverErrors, '0', zero),
    row(b, 'answers differing from the winner', result.inconsistent, '0', zero),
    row(b, 'other failed requests', result.otherFailures, '0', zero),
    row(
      b,
      'server RSS mean, second half / first half (after the warm-up)',
      result.rss.lastVsFirst,
      '0.9–1.1',
      within(0.9, 1.1),
    ),
    {
      benchmark: b,
      metric: 'server RSS MiB: as the warm-up began; max',
      value: `${result.rss.warmupStartMiB}; ${result.rss.maxMiB}`,
      goal: 'report',
      pass: null,
    },
    ...(result.walMaxMiB === undefined
      ? []
      : [row(b, 'SQLite WAL file max MiB', result.walMaxMiB, 'report')]),
    {
      benchmark: b,
      metric: `answered asks: measured; audited, warm-up included (${result.raced} raced)`,
      value: `${result.measuredAnswered}; ${result.answered}`,
      goal: 'report',
      pass: null,
    },
    row(b, 'cycles/s', result.perSecond, 'report'),
    row(b, 'cycle p99 ms', result.cycle.p99Ms, 'report'),
    {
      benchmark: b,
      metric: 'p99 / max ms: ask to question seen; seen to agent; respond',
      value: [result.stages.askToSeen, result.stages.seenToAgent, result.stages.respond]
        .map((stage) => `${stage.p99Ms} / ${Math.round(stage.maxMs)}`)
        .join('; '),
      goal: 'report',
      pass: null,
    },
    {
      benchmark: b,
      metric: 'event-loop delay p99 / max ms: server; load generator',
      value: [result.loopDelay.server, result.loopDelay.generator]
        .map((delay) => `${delay.p99Ms} / ${delay.maxMs}`)
        .join('; '),
      goal: 'report',
      pass: null,
    },
    {
      benchmark: b,
      metric: `platform: ${result.platform.burst} new connections, p50 / max ms, idle server; loop busy ${result.platform.turnMs} ms a turn`,
      value: [result.platform.idle, result.platform.busy]
        .map((burst) => `${Math.round(burst.p50Ms)} / ${Math.round(burst.maxMs)}`)
        .join('; '),
      goal: 'report',
      pass: null,
    },
    row(
      b,
      'platform: new connections a busy server took per turn',
      result.platform.acceptedPerTurn,
      'report',
    ),
    row(b, 'answers resumed as a new turn (agent had stopped waiting)', result.resumed, 'report'),
    row(b, 'agent requests resent after a connection reset', result.retried, 'report'),
    {
      benchmark: b,
      metric: 'left after the run: pending rows / delivery intents',
      value: `${result.leftover.pendingRows} / ${result.leftover.deliveryIntents}`,
      goal: '0 / 0',
      pass: result.leftover.pendingRows === 0 && result.leftover.deliveryIntents === 0,
    },
  ];
}

/** Benchmark 8 (issue 16): two replicas on one PostgreSQL against one. */
export function replicasRows(result: ReplicasResult): GoalRow[] {
  const b = '8 replicas postgres';
  const { one, two, latency, ratios, concurrency } = result;
  const ms = (summary: { p50Ms: number; p99Ms: number }) => `${summary.p50Ms} / ${summary.p99Ms}`;
  return [
    row(b, `answers/s at ${concurrency}, 2 replicas / 1`, ratios.throughput, '≥ 1.3', atLeast(1.3)),
    row(b, `answers/s at ${concurrency}, 1 replica`, one.perSecond, 'report'),
    row(b, `answers/s at ${concurrency}, 2 replicas`, two.perSecond, 'report'),
    {
      benchmark: b,
      metric: 'CPU ms per answer, servers + database backends + load generator: 1 replica; 2',
      value: [one, two]
        .map(({ cpuMsPerRespond: cpu }) => `${cpu.servers} + ${cpu.database} + ${cpu.generator}`)
        .join('; '),
      goal: 'report',
      pass: null,
    },
    row(
      b,
      'CPU-bound ceiling of 2 replicas / 1 on this machine (from the 1-replica CPU)',
      ratios.throughputCeiling,
      'report',
    ),
    row(
      b,
      'failed responds or bundles left pending (throughput)',
      one.failures + two.failures + one.leftPending + two.leftPending,
      '0',
      zero,
    ),
    row(b, 'answer p99, cross replica / same replica', ratios.answerP99, '≤ 2', atMost(2)),
    row(b, 'answer p50, cross replica / same replica', ratios.answerP50, 'report'),
    {
      benchmark: b,
      metric: `POST to agent's result p50 / p99 ms (${latency.same.answer.samples} each): same; cross`,
      value: `${ms(latency.same.answer)}; ${ms(latency.cross.answer)}`,
      goal: 'report',
      pass: null,
    },
    {
      benchmark: b,
      metric: 'POST to its reply p50 / p99 ms: same; cross',
      value: `${ms(latency.same.post)}; ${ms(latency.cross.post)}`,
      goal: 'report',
      pass: null,
    },
    row(b, 'failed answer-latency samples', latency.failures, '0', zero),
  ];
}

function driver(result: LoadResult): string {
  const seconds = Math.round(result.durationMs / 1000);
  return `${result.driver} (${seconds} s)`;
}

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
