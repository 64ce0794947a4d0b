/**
 * Benchmarks 1 and 2 on one driver. Two servers run side by side in this
 * process: the baseline over a small number of unrelated messages, the other
 * over a large number. Every scenario takes its samples interleaved with the
 * baseline's (see `interleavedSeries`), so its ratio compares the two sizes
 * under the same machine conditions. The scenarios: the large store with
 * every index, then with the ordered pending-ID index dropped (only the bare
 * one left), then with the bare one dropped too (only the session-leading
 * one, which a pending-ID-only claim cannot seek). Each records the claim's
 * plan, so a scan shows as one.
 */
import {
  PENDING_ID_INDEX,
  PENDING_ID_LOOKUP_INDEX,
  PENDING_ID_ORDERED_INDEX,
  claimBundleQuery,
  type Driver,
  type Store,
} from '../src/store/index.js';
import { createFillers, dropIndex, loadUnrelated } from './bulk-data.js';
import { startClarion, type ClarionInstance } from './clarion-instance.js';
import { BenchClient } from './http-client.js';
import type { BenchSizes } from './options.js';
import type { BenchPostgres } from './postgres.js';
import { interleavedSeries, type RespondTarget, type SeriesResult } from './respond-series.js';
import { ratio, round } from './stats.js';

export interface ScenarioResult extends SeriesResult {
  unrelated: number;
  indexes: string;
  /** The baseline's samples, taken in alternation with this scenario's. */
  baseline: SeriesResult;
  claimPlan: string[];
  /**
   * How the claim reaches the bundle's rows: `seek` on a pending-ID-leading
   * index, `skip scan` of the session-leading index (PostgreSQL 18 probes it
   * once per distinct session), or `scan` of the whole table.
   */
  claimAccess: 'seek' | 'skip scan' | 'scan';
}

export interface FlatnessResult {
  driver: Driver;
  baselineUnrelated: number;
  generationMs: { small: number; large: number };
  large: ScenarioResult;
  bareIndexOnly: ScenarioResult;
  sessionIndexOnly: ScenarioResult;
  /** Each scenario's p50 and p99 over those of the baseline samples interleaved with it. */
  ratios: {
    largeVsSmall: { p50: number; p99: number };
    bareOnlyVsSmall: { p50: number; p99: number };
    sessionOnlyVsSmall: { p50: number; p99: number };
  };
}

const SCAN = /SCAN task_session_messages\b(?! r\b)|Seq Scan on task_session_messages\b(?! r\b)/;
const SEED = 7;
const SCENARIOS = 3;

export async function measureFlatness(
  driver: Driver,
  sizes: BenchSizes,
  postgres: BenchPostgres | undefined,
  log: (line: string) => void = () => {},
): Promise<FlatnessResult> {
  const opened: { instance: ClarionInstance; client: BenchClient }[] = [];
  const open = async (unrelated: number) => {
    const instance = await startClarion(driver, postgres);
    const client = new BenchClient(instance.server.url);
    opened.push({ instance, client });
    // A fresh session per scenario on each side, so no scenario's transcript
    // carries the previous one's answered bundles.
    const sessions = await instance.seedSessions(SCENARIOS);
    await createFillers(instance.server.store, sizes.fillerSessions);
    const ms = await loadUnrelated(instance.server.store, {
      from: 0,
      to: unrelated,
      seed: SEED,
      questionEvery: 100,
    });
    const target = (): RespondTarget => {
      const sessionId = sessions.shift();
      if (!sessionId) throw new Error('no fresh session left');
      return { instance, client, sessionId };
    };
    return { store: instance.server.store, target, ms };
  };
  try {
    const small = await open(sizes.small);
    const large = await open(sizes.large);
    log(`${driver}: ${sizes.large} rows generated in ${round(large.ms / 1000, 1)} s`);

    const scenario = async (
      label: string,
      indexes: string,
      counts = { warmup: sizes.warmup, samples: sizes.flatSamples },
    ): Promise<ScenarioResult> => {
      const [baseline, series] = await interleavedSeries(
        small.target(),
        large.target(),
        label,
        counts,
      );
      const claimPlan = await claimPlanOf(large.store);
      return {
        ...series,
        unrelated: sizes.large,
        indexes,
        baseline,
        claimPlan,
        claimAccess: accessOf(claimPlan),
      };
    };
    const largeAll = await scenario('large', 'all');
    await dropIndex(large.store, PENDING_ID_ORDERED_INDEX);
    const bareIndexOnly = await scenario('bare', 'bare pending-ID + session-leading');
    await dropIndex(large.store, PENDING_ID_LOOKUP_INDEX);
    const sessionIndexOnly = await scenario('session', 'session-leading only', {
      warmup: 1,
      samples: sizes.scanSamples,
    });
    const versusBaseline = ({ latency, baseline }: ScenarioResult) => ({
      p50: ratio(latency.p50Ms, baseline.latency.p50Ms),
      p99: ratio(latency.p99Ms, baseline.latency.p99Ms),
    });
    return {
      driver,
      baselineUnrelated: sizes.small,
      generationMs: { small: round(small.ms, 0), large: round(large.ms, 0) },
      large: largeAll,
      bareIndexOnly,
      sessionIndexOnly,
      ratios: {
        largeVsSmall: versusBaseline(largeAll),
        bareOnlyVsSmall: versusBaseline(bareIndexOnly),
        sessionOnlyVsSmall: versusBaseline(sessionIndexOnly),
      },
    };
  } finally {
    for (const { instance, client } of opened) {
      client.close();
      await instance.close();
    }
  }
}

/** Failed responds in every scenario and in the baseline samples beside them. */
export function flatnessFailures(result: FlatnessResult): number {
  return [result.large, result.bareIndexOnly, result.sessionIndexOnly].reduce(
    (sum, scenario) => sum + scenario.failures + scenario.baseline.failures,
    0,
  );
}

function accessOf(plan: readonly string[]): ScenarioResult['claimAccess'] {
  if (plan.some((line) => SCAN.test(line))) return 'scan';
  const sessionLeading = new RegExp(`using ${PENDING_ID_INDEX}\\b`, 'i');
  return plan.some((line) => sessionLeading.test(line)) ? 'skip scan' : 'seek';
}

/** The planner's plan for the real claim statement, as the query-plan tests read it. */
async function claimPlanOf(store: Store): Promise<string[]> {
  const claim = claimBundleQuery(store, {
    pendingId: '00000000-0000-4000-8000-000000000000',
    sessionId: '00000000-0000-4000-8000-000000000001',
    turnId: '00000000-0000-4000-8000-000000000002',
    status: 'answered',
    responses: new Map([['q1', { question_id: 'q1' }]]),
    rejectReason: '',
    respondedAt: store.clock.timestamp(),
    respondedBy: { user_id: 'bench', name: 'Bench', surface: 'rest' },
  }).compile();
  return store.dialect.explain(store.db, claim);
}
