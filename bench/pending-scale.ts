/**
 * Benchmark 6: pending work at scale, on one `clarion serve` in a process of
 * its own (so that its resident memory is its own). First it holds
 * `pendingFew` pending bundles, every one with a live waiter (an MCP agent
 * blocked in `ask_user_question`); then it grows, while running, to
 * `pendingMany`, of which `waitersMany` have live waiters and the rest are
 * detached.
 *
 * At each level `pendingFew` probe agents in fresh sessions take turns: a
 * probe's bundle is answered over REST (timed: the claim and the hand-off to
 * the blocked agent both complete before the 200), the probe checks that it
 * got that answer, then asks again. The population stays constant, and the
 * probes' own sessions start empty at both levels, so the ratio isolates the
 * pending load. Memory is sampled while each level is held; afterwards the
 * pending bundles are counted in the database, and one page of the admin's
 * inbox is timed.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Driver } from '../src/store/index.js';
import { ADMIN_TOKEN, ANSWER, askArgs } from './clarion-instance.js';
import { BenchClient } from './http-client.js';
import { askQuestion, connectAgent, type AskOutcome } from './mcp-agent.js';
import type { BenchSizes } from './options.js';
import type { BenchPostgres } from './postgres.js';
import { watchQuestions, type QuestionWatch } from './question-watch.js';
import type { SeededAgent } from './seed-database.js';
import { openCensus, type CensusTaker } from './pending-census.js';
import { startSeededServer } from './seeded-server.js';
import { sampleRss } from './server-process.js';
import { elapsedMs, ratio, round, runPool, summarize, type LatencySummary } from './stats.js';

export interface PendingLevel {
  pending: number;
  waiters: number;
  /** Wall time to connect the agents and have every waiter blocked. */
  holdMs: number;
  latency: LatencySummary;
  failures: number;
  /** Resident memory sampled while the population was held, and the process's peak. */
  rssMiB: { mean: number; max: number; peak: number };
  /** Pending bundles in the database after the series; equals `pending` when all is well. */
  counted: number;
  /** One `GET /api/v1/pending` (first page, default size) after the series. */
  inboxPageMs: number;
}

export interface PendingResult {
  driver: Driver;
  few: PendingLevel;
  many: PendingLevel;
  ratios: { p50: number; p99: number };
}

/** Detached bundles per holder session: a spread, not one giant transcript. */
const DETACHED_PER_SESSION = 10;
/** Agents connecting and asking at once while the population is built. */
const HOLD_LANES = 16;
const RSS_EVERY_MS = 250;
const DETACH_TIMEOUT_MS = 60_000;
/** How long an answered probe may take to see its answer before the sample counts as failed. */
const ANSWER_TIMEOUT_MS = 30_000;
/** Generous: a thousand agents connecting at once keep a busy 2-core machine saturated. */
const SEEN_TIMEOUT_MS = 60_000;
const AUTH = { authorization: `Bearer ${ADMIN_TOKEN}` };

interface Held {
  client: Client;
  sessionId: string;
  pendingId: string;
  /** The agent's blocked call; settles when it gets its answer (or the run ends). */
  call: Promise<AskOutcome>;
}

export async function measurePendingScale(
  driver: Driver,
  sizes: BenchSizes,
  postgres: BenchPostgres | undefined,
  log: (line: string) => void = () => {},
): Promise<PendingResult> {
  const { pendingFew, pendingMany, waitersMany } = sizes;
  if (waitersMany < pendingFew || pendingMany < waitersMany) throw new Error('bad pending sizes');
  const seeded = await startSeededServer(driver, postgres, {
    agents: pendingFew,
    detached: 0,
    detachedPerSession: DETACHED_PER_SESSION,
    seed: 17,
  });
  const { server } = seeded;
  const http = new BenchClient(server.url);
  const clients: Client[] = [];
  let questions: QuestionWatch | undefined;
  let census: CensusTaker | undefined;
  try {
    const watch = await watchQuestions(server.url, ADMIN_TOKEN);
    questions = watch;
    const counter = await openCensus(seeded.target);
    census = counter;
    const level = async (agents: readonly SeededAgent[], pending: number) => {
      const started = performance.now();
      const held = await holdAll(server.url, agents, watch, clients);
      const holdMs = elapsedMs(started);
      const sampler = sampleRss(server, RSS_EVERY_MS);
      const series = await probeSeries(http, held.slice(0, pendingFew), watch, sizes);
      const rss = (await sampler.stop()).map((sample) => sample.rssMiB);
      // The kernel raises VmHWM lazily, at unmaps and exit rather than at every
      // page fault, so a sample taken while the population was held can exceed it.
      const peakMiB = Math.max((await server.memory()).peakMiB, ...rss);
      return {
        pending,
        waiters: clients.length,
        holdMs: round(holdMs, 0),
        ...series,
        rssMiB: {
          mean: round(rss.reduce((sum, value) => sum + value, 0) / rss.length, 1),
          max: Math.max(...rss),
          peak: peakMiB,
        },
        counted: (await counter.count()).pending,
        inboxPageMs: await timeInboxPage(http),
      };
    };

    const few = await level(seeded.agents, pendingFew);
    log(`${driver}: ${few.pending} pending held, respond p99 ${few.latency.p99Ms} ms`);
    const t0 = performance.now();
    const added = await seeded.grow({
      agents: waitersMany - pendingFew,
      detached: pendingMany - waitersMany,
      detachedPerSession: DETACHED_PER_SESSION,
      seed: 17,
    });
    log(`${driver}: grown to ${pendingMany} pending in ${round(elapsedMs(t0) / 1000, 1)} s`);
    const many = await level(added, pendingMany);
    log(
      `${driver}: ${many.pending} pending (${many.waiters} live) held in ` +
        `${round(many.holdMs / 1000, 1)} s, RSS max ${many.rssMiB.max} MiB, ` +
        `respond p99 ${many.latency.p99Ms} ms`,
    );
    // Stopping the server while it still detaches the abandoned calls races
    // those writes against its closing store (see bench/RESULTS.md).
    await Promise.allSettled(clients.map((client) => client.close()));
    await counter.untilAllDetached(DETACH_TIMEOUT_MS);
    return {
      driver,
      few,
      many,
      ratios: {
        p50: ratio(many.latency.p50Ms, few.latency.p50Ms),
        p99: ratio(many.latency.p99Ms, few.latency.p99Ms),
      },
    };
  } finally {
    questions?.close();
    await census?.close();
    http.close();
    await Promise.allSettled(clients.map((client) => client.close()));
    await seeded.close();
  }
}

/** Connects each agent (kept in `clients`) and blocks it in an ask. */
async function holdAll(
  serverUrl: string,
  agents: readonly SeededAgent[],
  questions: QuestionWatch,
  clients: Client[],
): Promise<Held[]> {
  const held: Held[] = [];
  await runPool(agents.length, HOLD_LANES, async (index) => {
    const agent = agents[index];
    if (!agent) throw new Error(`no agent ${index}`);
    const client = await connectAgent(serverUrl, agent.secret);
    clients.push(client);
    held[index] = await hold(client, agent.sessionId, questions, `hold ${index}`);
  });
  return held;
}

/**
 * Answers the probes' bundles in turn, timing each respond; each answered
 * probe asks again before the next sample, so the population stays put.
 */
async function probeSeries(
  http: BenchClient,
  probes: Held[],
  questions: QuestionWatch,
  sizes: BenchSizes,
): Promise<{ latency: LatencySummary; failures: number }> {
  const ms: number[] = [];
  let failures = 0;
  for (let index = 0; index < sizes.warmup + sizes.pendingSamples; index++) {
    const slot = index % probes.length;
    const probe = probes[slot];
    if (!probe) throw new Error(`no probe ${slot}`);
    const t0 = performance.now();
    const reply = await http.post(`/api/v1/clarification/${probe.pendingId}/respond`, ANSWER, AUTH);
    const elapsed = elapsedMs(t0);
    // Unanswered, the call would wait for hours; a failed sample moves on with a fresh ask.
    const outcome = reply.status === 200 ? await within(probe.call, ANSWER_TIMEOUT_MS) : undefined;
    const answered = outcome?.status === 'answered' && outcome.pendingId === probe.pendingId;
    if (!answered) failures++;
    if (index >= sizes.warmup) ms.push(elapsed);
    probes[slot] = await hold(probe.client, probe.sessionId, questions, `probe ${index}`);
  }
  return { latency: summarize(ms), failures };
}

/** Starts a blocking ask and resolves once its bundle is stored (seen on the event stream). */
async function hold(
  client: Client,
  sessionId: string,
  questions: QuestionWatch,
  tag: string,
): Promise<Held> {
  // A call that fails (say, the run ends while it waits) is an outcome to check,
  // never an unhandled rejection.
  const call = askQuestion(client, askArgs(tag), { longWait: true }).catch((): AskOutcome => ({
    status: 'error',
    pendingId: undefined,
    selected: [],
  }));
  const pendingId = await questions.next(sessionId, SEEN_TIMEOUT_MS);
  return { client, sessionId, pendingId, call };
}

function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => {
      resolve(undefined);
    }, ms);
  });
  return Promise.race([promise, timeout]).finally(() => {
    clearTimeout(timer);
  });
}

async function timeInboxPage(http: BenchClient): Promise<number> {
  const t0 = performance.now();
  const reply = await http.get('/api/v1/pending', AUTH);
  const ms = elapsedMs(t0);
  if (reply.status !== 200) throw new Error(`listing pending bundles: HTTP ${reply.status}`);
  return round(ms, 1);
}
