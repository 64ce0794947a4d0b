/**
 * Benchmark 7: sustained load on 127.0.0.1. `loadAgents` MCP agents ask back
 * to back for `loadWarmupMs` and then `loadMs` (each blocked in
 * `ask_user_question` until answered) while `loadResponders` responders
 * answer from their event streams, one ask in five raced by two of them (see
 * `load-responders.ts`). The server runs as a child process; its resident
 * memory is sampled all along. Rates, latencies and the memory halves come
 * from the `loadMs` after the warm-up, once V8's heap, SQLite's caches and
 * the connections have grown to what this load needs; the audit covers
 * every ask, warm-up included.
 *
 * Agents wait as a long-waiting agent must, kept alive by the server's
 * progress notifications: with the SDK's plain 60 s request timeout a
 * saturated server makes agents give up, and their answers then arrive as
 * resumed turns instead (see bench/RESULTS.md).
 *
 * Afterwards every ask is audited from both ends and from the database:
 * - lost: an ask whose agent did not get its answer live (asks still waiting
 *   a grace period after the run are aborted);
 * - double: a bundle with two winning replies, or an answer that reached
 *   agents twice, live or as a resumed turn (a new turn started from a
 *   detached bundle's answer);
 * - inconsistent: an agent, or a losing responder, told something other
 *   than the winner's answer;
 * - 5xx: every HTTP response of the server, REST and MCP alike.
 */
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SQLITE_FILE, type Driver } from '../src/store/index.js';
import { measureAcceptRate, type AcceptRateResult } from './accept-rate.js';
import { askArgs } from './clarion-instance.js';
import { auditDatabase, tally, type Received, type Tally } from './load-audit.js';
import {
  cycleStages,
  serverLoopDelay,
  slowestCycles,
  watchFileSize,
  type AnsweredCycle,
  type CycleStages,
  type LoopDelay,
  type SlowCycle,
} from './load-diagnostics.js';
import { loadTag, startResponders } from './load-responders.js';
import { askQuestion, connectAgent, type AskOutcome } from './mcp-agent.js';
import type { BenchSizes } from './options.js';
import type { BenchPostgres } from './postgres.js';
import { startSeededServer } from './seeded-server.js';
import { sampleRss, type RssSample } from './server-process.js';
import { elapsedMs, ratio, round, runPool, summarize, type LatencySummary } from './stats.js';

export interface LoadResult extends Tally {
  driver: Driver;
  /** The measured window, from the end of the warm-up to the last answer. */
  durationMs: number;
  warmupMs: number;
  agents: number;
  responders: number;
  /** Over the whole run, warm-up included: what the audit covers. */
  asks: number;
  answered: number;
  /** Asks started in the measured window and answered. */
  measuredAnswered: number;
  perSecond: number;
  cycle: LatencySummary;
  stages: CycleStages;
  /** The slowest answered cycles, stage by stage, and when in the measured window they started (s). */
  slowest: SlowCycle[];
  /** How fast this machine lets a busy Node server accept new connections (`accept-rate.ts`). */
  platform: AcceptRateResult;
  /** Event-loop delay over the run, ms: the server's (from its `/metrics`) and the load generator's. */
  loopDelay: { server: LoopDelay; generator: LoopDelay };
  /** Agent requests sent again after a connection reset (see `mcp-agent.ts`). */
  retried: number;
  /**
   * Mean resident memory over the first and the second half of the measured
   * window; `warmupStartMiB` is the first sample, in the warm-up's first seconds.
   */
  rss: {
    warmupStartMiB: number;
    firstMeanMiB: number;
    lastMeanMiB: number;
    lastVsFirst: number;
    maxMiB: number;
  };
  /** SQLite: the largest the WAL file grew during the run (checkpoints keep it bounded). */
  walMaxMiB: number | undefined;
  /** Left in the database after the run: none of either when every answer was handed off. */
  leftover: { pendingRows: number; deliveryIntents: number };
  /** The first few responder replies that were not 200, and agent calls that failed. */
  unexpected: string[];
}

/** How long asks still in flight at the deadline may take before they are aborted as lost. */
const GRACE_MS = 30_000;
const CONNECT_LANES = 16;
/** About 120 memory samples per run, however long it is. */
const RSS_SAMPLES = 120;

export async function measureLoad(
  driver: Driver,
  sizes: BenchSizes,
  postgres: BenchPostgres | undefined,
  log: (line: string) => void = () => {},
): Promise<LoadResult> {
  // First, while nothing else runs: it measures the machine, not Clarion.
  const platform = await measureAcceptRate(sizes.acceptBurst, sizes.acceptTurnMs);
  const seeded = await startSeededServer(driver, postgres, {
    agents: sizes.loadAgents,
    detached: 0,
    detachedPerSession: 1,
    seed: 23,
  });
  const { server } = seeded;
  const sessions = seeded.agents.map((agent) => agent.sessionId);
  let mcpServerErrors = 0;
  let retried = 0;
  const agentOptions = {
    onStatus: (status: number) => {
      if (status >= 500) mcpServerErrors++;
    },
    onRetry: () => {
      retried++;
    },
  };
  const clients: Client[] = [];
  let responders: Awaited<ReturnType<typeof startResponders>> | undefined;
  try {
    responders = await startResponders(server.url, sessions, sizes.loadResponders);
    await runPool(seeded.agents.length, CONNECT_LANES, async (index) => {
      const agent = seeded.agents[index];
      if (!agent) throw new Error(`no agent ${index}`);
      clients[index] = await connectAgent(server.url, agent.secret, agentOptions);
    });

    const received: Received[] = [];
    const failedCalls: string[] = [];
    const cycleMs: number[] = [];
    const answeredCycles: AnsweredCycle[] = [];
    let asks = 0;
    // One controller per call: the SDK leaves its listener on the signal it is given.
    const inFlight = new Set<AbortController>();
    const runMs = sizes.loadWarmupMs + sizes.loadMs;
    const everyMs = Math.max(50, Math.round(runMs / RSS_SAMPLES));
    const sampler = sampleRss(server, everyMs);
    const walWatch =
      seeded.target.driver === 'sqlite'
        ? watchFileSize(join(seeded.target.dataDir, `${SQLITE_FILE}-wal`), everyMs)
        : undefined;
    const started = performance.now();
    const measuredFrom = started + sizes.loadWarmupMs;
    const deadline = measuredFrom + sizes.loadMs;
    const generatorLoop = monitorEventLoopDelay({ resolution: 10 });
    // The server's lag histogram starts over at each read: this one ends its warm-up.
    const warmedUp = new Promise<unknown>((resolve) => {
      setTimeout(() => {
        generatorLoop.enable();
        // Resolved with the read itself, so a failed read fails the run where it is awaited.
        resolve(serverLoopDelay(server.url));
      }, sizes.loadWarmupMs);
    });
    const grace = setTimeout(() => {
      for (const call of inFlight) call.abort();
    }, runMs + GRACE_MS);
    const agentsDone = Promise.all(
      clients.map(async (client, agent) => {
        for (let cycle = 0; performance.now() < deadline; cycle++) {
          asks++;
          const call = new AbortController();
          inFlight.add(call);
          const t0 = performance.now();
          const outcome = await askQuestion(client, askArgs(loadTag(agent, cycle)), {
            signal: call.signal,
            longWait: true,
          }).catch((error: unknown): AskOutcome => {
            if (failedCalls.length < 10) failedCalls.push(`agent ${agent}: ${String(error)}`);
            return { status: 'error', pendingId: undefined, selected: [] };
          });
          if (outcome.status !== 'answered' && failedCalls.length < 10) {
            const late = call.signal.aborted ? ' (aborted after the grace period)' : '';
            failedCalls.push(
              `agent ${agent} cycle ${cycle}: ${outcome.status}${late} after ${Math.round(elapsedMs(t0))} ms`,
            );
          }
          inFlight.delete(call);
          const measured = t0 >= measuredFrom;
          if (measured) cycleMs.push(elapsedMs(t0));
          if (outcome.status === 'answered' && outcome.pendingId !== undefined) {
            received.push({ pendingId: outcome.pendingId, selected: outcome.selected });
            if (!measured) continue;
            answeredCycles.push({
              agent,
              cycle,
              pendingId: outcome.pendingId,
              startedAtMs: t0,
              endedAtMs: performance.now(),
            });
          }
        }
      }),
    );
    await warmedUp;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, deadline - performance.now())));
    const rss = await sampler.stop();
    generatorLoop.disable();
    const loopDelay = {
      server: await serverLoopDelay(server.url),
      generator: {
        p99Ms: round(generatorLoop.percentile(99) / 1e6, 1),
        maxMs: round(generatorLoop.max / 1e6, 1),
      },
    };
    const walMaxMiB = walWatch?.stop();
    await agentsDone;
    clearTimeout(grace);
    await responders.settled();
    const durationMs = elapsedMs(started) - sizes.loadWarmupMs;
    log(
      `load: ${asks} asks by ${clients.length} agents in ${round(sizes.loadWarmupMs / 1000, 1)} s ` +
        `of warm-up and ${round(durationMs / 1000, 1)} s measured`,
    );

    responders.close();
    await Promise.allSettled(clients.map((client) => client.close()));
    await server.stop();
    const database = await auditDatabase(seeded.target, sessions);
    const counts = tally(asks, received, responders.replies, database);
    return {
      driver,
      durationMs: round(durationMs, 0),
      warmupMs: sizes.loadWarmupMs,
      agents: clients.length,
      responders: sizes.loadResponders,
      asks,
      answered: received.length,
      measuredAnswered: answeredCycles.length,
      perSecond: round((answeredCycles.length / durationMs) * 1000, 1),
      cycle: summarize(cycleMs),
      stages: cycleStages(answeredCycles, responders.timings),
      slowest: slowestCycles(
        answeredCycles,
        responders.timings,
        database.writtenAtMs,
        measuredFrom,
      ),
      loopDelay,
      platform,
      ...counts,
      serverErrors: counts.serverErrors + mcpServerErrors,
      retried,
      rss: rssHalves(rss, sizes.loadWarmupMs, sizes.loadMs),
      walMaxMiB,
      leftover: { pendingRows: database.pendingRows, deliveryIntents: database.deliveryIntents },
      unexpected: [...responders.unexpected, ...failedCalls],
    };
  } finally {
    responders?.close();
    await Promise.allSettled(clients.map((client) => client.close()));
    await seeded.close();
  }
}

/** Sample times count from the start of the warm-up; the halves split what follows it. */
function rssHalves(
  samples: readonly RssSample[],
  warmupMs: number,
  loadMs: number,
): LoadResult['rss'] {
  const mean = (values: readonly number[]) =>
    values.length === 0
      ? Number.NaN
      : values.reduce((sum, value) => sum + value, 0) / values.length;
  const middle = warmupMs + loadMs / 2;
  const measured = samples.filter((s) => s.atMs >= warmupMs);
  const first = mean(measured.filter((s) => s.atMs < middle).map((s) => s.rssMiB));
  const last = mean(measured.filter((s) => s.atMs >= middle).map((s) => s.rssMiB));
  return {
    warmupStartMiB: samples[0]?.rssMiB ?? Number.NaN,
    firstMeanMiB: round(first, 1),
    lastMeanMiB: round(last, 1),
    lastVsFirst: ratio(last, first),
    maxMiB: Math.max(...samples.map((s) => s.rssMiB)),
  };
}
