/**
 * Benchmarks 1 and 2 on one driver: respond latency with a small and a large
 * number of unrelated messages, then at the large size with the ordered
 * pending-ID index dropped (only the bare one left), then with the bare one
 * dropped too (only the session-leading one, which a pending-ID-only claim
 * cannot seek). Each step records the claim's plan, so a scan shows as one.
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
import { startClarion } from './clarion-instance.js';
import { BenchClient } from './http-client.js';
import type { BenchSizes } from './options.js';
import type { BenchPostgres } from './postgres.js';
import { respondSeries, type SeriesResult } from './respond-series.js';
import { ratio, round } from './stats.js';

export interface ScenarioResult extends SeriesResult {
  unrelated: number;
  indexes: string;
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
  generationMs: { small: number; large: number };
  small: ScenarioResult;
  large: ScenarioResult;
  bareIndexOnly: ScenarioResult;
  sessionIndexOnly: ScenarioResult;
  ratios: {
    largeVsSmall: { p50: number; p99: number };
    bareOnlyVsSmall: { p50: number; p99: number };
    sessionOnlyVsSmall: { p50: number; p99: number };
  };
}

const SCAN = /SCAN task_session_messages\b(?! r\b)|Seq Scan on task_session_messages\b(?! r\b)/;

export async function measureFlatness(
  driver: Driver,
  sizes: BenchSizes,
  postgres: BenchPostgres | undefined,
  log: (line: string) => void = () => {},
): Promise<FlatnessResult> {
  const instance = await startClarion(driver, postgres);
  const client = new BenchClient(instance.server.url);
  try {
    const { store } = instance.server;
    // A fresh session per scenario: the respond path also reads the session's
    // own transcript (see RESULTS.md), which would otherwise grow from one
    // scenario to the next and blur what the unrelated rows cost.
    const sessions = await instance.seedSessions(4);
    await createFillers(store, sizes.fillerSessions);
    const counts = { warmup: sizes.warmup, samples: sizes.flatSamples };
    const scenario = async (label: string, unrelated: number, indexes: string, n = counts) => {
      const sessionId = sessions.shift();
      if (!sessionId) throw new Error('no fresh session left');
      const series = await respondSeries(instance, client, sessionId, label, n);
      const claimPlan = await claimPlanOf(store);
      return {
        ...series,
        unrelated,
        indexes,
        claimPlan,
        claimAccess: accessOf(claimPlan),
      };
    };

    const seed = 7;
    const smallMs = await loadUnrelated(store, {
      from: 0,
      to: sizes.small,
      seed,
      questionEvery: 100,
    });
    const small = await scenario('small', sizes.small, 'all');
    const largeMs = await loadUnrelated(store, {
      from: sizes.small,
      to: sizes.large,
      seed,
      questionEvery: 100,
    });
    log(`${driver}: ${sizes.large - sizes.small} rows generated in ${round(largeMs / 1000, 1)} s`);
    const large = await scenario('large', sizes.large, 'all');
    await dropIndex(store, PENDING_ID_ORDERED_INDEX);
    const bareIndexOnly = await scenario('bare', sizes.large, 'bare pending-ID + session-leading');
    await dropIndex(store, PENDING_ID_LOOKUP_INDEX);
    const sessionIndexOnly = await scenario('session', sizes.large, 'session-leading only', {
      warmup: 1,
      samples: sizes.scanSamples,
    });
    const versus = (other: ScenarioResult) => ({
      p50: ratio(other.latency.p50Ms, small.latency.p50Ms),
      p99: ratio(other.latency.p99Ms, small.latency.p99Ms),
    });
    return {
      driver,
      generationMs: { small: round(smallMs, 0), large: round(largeMs, 0) },
      small,
      large,
      bareIndexOnly,
      sessionIndexOnly,
      ratios: {
        largeVsSmall: versus(large),
        bareOnlyVsSmall: versus(bareIndexOnly),
        sessionOnlyVsSmall: versus(sessionIndexOnly),
      },
    };
  } finally {
    client.close();
    await instance.close();
  }
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
    status: 'answered',
    responses: new Map([['q1', { question_id: 'q1' }]]),
    rejectReason: '',
    respondedAt: store.clock.timestamp(),
  }).compile();
  return store.dialect.explain(store.db, claim);
}
