/**
 * Benchmark 3: Clarion's respond against the floor (a bare indexed claim
 * behind bare `node:http`), at concurrency 1 and N, on SQLite with the small
 * data set. Throughput counts only the respond phase: each round first asks
 * one live bundle per session (untimed), then fires every respond through a
 * pool of `concurrency` lanes. CPU per respond is `process.cpuUsage()` over
 * the respond phase: it includes the load generator, which shares this
 * process and the machine's cores, on both sides alike.
 */
import { createFillers, loadUnrelated } from './bulk-data.js';
import { startClarion, ANSWER, ADMIN_TOKEN } from './clarion-instance.js';
import { startFloorServer } from './floor-server.js';
import { BenchClient, type JsonReply } from './http-client.js';
import type { BenchSizes } from './options.js';
import { elapsedMs, ratio, round, runPool, summarize, type LatencySummary } from './stats.js';

export interface ThroughputResult {
  concurrency: number;
  responds: number;
  perSecond: number;
  latency: LatencySummary;
  cpuMsPerRespond: number;
  failures: number;
}

export interface FloorResult {
  unrelated: number;
  clarion: { single: ThroughputResult; many: ThroughputResult };
  floor: { single: ThroughputResult; many: ThroughputResult };
  ratios: {
    throughputSingle: number;
    throughputMany: number;
    p50Single: number;
    p99Many: number;
    cpuPerRespond: number;
  };
}

interface Phase {
  ms: number[];
  wallMs: number;
  cpuMs: number;
  failures: number;
}

/** Runs `respond` over `ids` with `concurrency` lanes, timing each call and the whole phase. */
async function timedPhase(
  ids: readonly string[],
  concurrency: number,
  respond: (id: string) => Promise<JsonReply>,
): Promise<Phase> {
  const ms: number[] = [];
  let failures = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  await runPool(ids.length, concurrency, async (index) => {
    const id = ids[index];
    if (id === undefined) return;
    const t0 = performance.now();
    const reply = await respond(id);
    ms.push(elapsedMs(t0));
    if (reply.status !== 200) failures++;
  });
  const wallMs = elapsedMs(started);
  const used = process.cpuUsage(cpu);
  return { ms, wallMs, cpuMs: (used.user + used.system) / 1000, failures };
}

function toResult(concurrency: number, phases: readonly Phase[]): ThroughputResult {
  const ms = phases.flatMap((phase) => phase.ms);
  const wall = phases.reduce((sum, phase) => sum + phase.wallMs, 0);
  const cpu = phases.reduce((sum, phase) => sum + phase.cpuMs, 0);
  return {
    concurrency,
    responds: ms.length,
    perSecond: round((ms.length / wall) * 1000, 1),
    latency: summarize(ms),
    cpuMsPerRespond: round(cpu / ms.length),
    failures: phases.reduce((sum, phase) => sum + phase.failures, 0),
  };
}

async function clarionThroughput(sizes: BenchSizes) {
  const instance = await startClarion('sqlite', undefined);
  const client = new BenchClient(instance.server.url);
  try {
    const sessions = await instance.seedSessions(sizes.floorBatch);
    await createFillers(instance.server.store, sizes.fillerSessions);
    await loadUnrelated(instance.server.store, {
      from: 0,
      to: sizes.small,
      seed: 11,
      questionEvery: 100,
    });
    let tag = 0;
    const round = async (concurrency: number): Promise<Phase> => {
      const asks = [];
      for (const session of sessions) asks.push(await instance.ask(session, `floor ${tag++}`));
      const phase = await timedPhase(
        asks.map((ask) => ask.pendingId),
        concurrency,
        (id) => instance.respond(client, id),
      );
      const outcomes = await Promise.all(asks.map((ask) => ask.done));
      phase.failures += outcomes.filter((o) => !o.ok || o.outcome !== 'answered').length;
      return phase;
    };
    const rounds = async (concurrency: number) => {
      const phases = [];
      for (let r = 0; r < sizes.floorRounds; r++) phases.push(await round(concurrency));
      return toResult(concurrency, phases);
    };
    await round(sizes.concurrency); // warm-up
    return { single: await rounds(1), many: await rounds(sizes.concurrency) };
  } finally {
    client.close();
    await instance.close();
  }
}

async function floorThroughput(sizes: BenchSizes) {
  const perLevel = sizes.floorBatch * sizes.floorRounds;
  const floor = await startFloorServer({
    unrelated: sizes.small,
    pending: sizes.floorBatch + 2 * perLevel,
  });
  const client = new BenchClient(floor.url);
  const respond = (id: string) =>
    client.post(`/api/v1/clarification/${id}/respond`, ANSWER, {
      authorization: `Bearer ${ADMIN_TOKEN}`,
    });
  try {
    const ids = [...floor.pendingIds];
    const level = async (concurrency: number) => {
      const phases = [];
      for (let r = 0; r < sizes.floorRounds; r++) {
        phases.push(await timedPhase(ids.splice(0, sizes.floorBatch), concurrency, respond));
      }
      return toResult(concurrency, phases);
    };
    await timedPhase(ids.splice(0, sizes.floorBatch), sizes.concurrency, respond); // warm-up
    return { single: await level(1), many: await level(sizes.concurrency) };
  } finally {
    client.close();
    await floor.close();
  }
}

export async function measureFloor(sizes: BenchSizes): Promise<FloorResult> {
  const clarion = await clarionThroughput(sizes);
  const floor = await floorThroughput(sizes);
  return {
    unrelated: sizes.small,
    clarion,
    floor,
    ratios: {
      throughputSingle: ratio(clarion.single.perSecond, floor.single.perSecond),
      throughputMany: ratio(clarion.many.perSecond, floor.many.perSecond),
      p50Single: ratio(clarion.single.latency.p50Ms, floor.single.latency.p50Ms),
      p99Many: ratio(clarion.many.latency.p99Ms, floor.many.latency.p99Ms),
      cpuPerRespond: ratio(clarion.many.cpuMsPerRespond, floor.many.cpuMsPerRespond),
    },
  };
}
