/**
 * Benchmark 3: Clarion's respond against two floors, at concurrency 1 and N,
 * on SQLite with the small data set:
 *
 * - the same-work floor (`same-work-floor.ts`): bare `node:http` doing the
 *   contract's durable steps (token lookup, visibility read, the claim with
 *   its delivery intent, the hand-off clearing it), so Clarion against it is
 *   Clarion's own overhead;
 * - the bare floor (`floor-server.ts`): one indexed `UPDATE … RETURNING`.
 *
 * All three servers run at once in this process, get the same client, the
 * same body and the same pool of lanes. Each level runs `floorRounds` rounds;
 * a round is one timed phase per server, in the order Clarion, same-work,
 * bare, then the reverse in the next round (ABC CBA …, the ABBA of
 * `respond-series.ts` for three), so the machine's drift lands on every side
 * alike. Throughput counts only the respond phase: Clarion's round first asks
 * one live bundle per session (untimed), then fires every respond through a
 * pool of `concurrency` lanes. CPU per respond is `process.cpuUsage()` over
 * the respond phase: it includes the load generator, which shares this
 * process and the machine's cores, on every side alike, so each CPU ratio
 * is lower than the servers' own would be. Replies are checked after the
 * phase, outside its clock.
 */
import { createFillers, loadUnrelated } from './bulk-data.js';
import { startClarion, ANSWER, ADMIN_TOKEN } from './clarion-instance.js';
import { startFloorServer } from './floor-server.js';
import { BenchClient, type JsonReply } from './http-client.js';
import type { BenchSizes } from './options.js';
import { startSameWorkFloor } from './same-work-floor.js';
import { elapsedMs, ratio, round, runPool, summarize, type LatencySummary } from './stats.js';

export interface ThroughputResult {
  concurrency: number;
  responds: number;
  perSecond: number;
  latency: LatencySummary;
  cpuMsPerRespond: number;
  failures: number;
}

export interface Levels {
  single: ThroughputResult;
  many: ThroughputResult;
}

/** Clarion over one floor: each value is Clarion's divided by the floor's. */
export interface FloorRatios {
  throughputSingle: number;
  throughputMany: number;
  p50Single: number;
  p99Many: number;
  cpuPerRespond: number;
}

export interface FloorResult {
  unrelated: number;
  clarion: Levels;
  /** The contract's durable steps behind bare `node:http`. */
  sameWork: Levels;
  /** One indexed `UPDATE … RETURNING` behind bare `node:http`. */
  bare: Levels;
  ratios: { sameWork: FloorRatios; bare: FloorRatios };
}

interface Phase {
  ms: number[];
  wallMs: number;
  cpuMs: number;
  failures: number;
}

/**
 * Runs `respond` over `ids` with `concurrency` lanes, timing each call and the
 * whole phase; then counts the replies `accept` refuses (after the clock).
 */
async function timedPhase(
  ids: readonly string[],
  concurrency: number,
  respond: (id: string) => Promise<JsonReply>,
  accept: (reply: JsonReply) => boolean,
): Promise<Phase> {
  const ms: number[] = [];
  const replies: JsonReply[] = [];
  const cpu = process.cpuUsage();
  const started = performance.now();
  await runPool(ids.length, concurrency, async (index) => {
    const id = ids[index];
    if (id === undefined) return;
    const t0 = performance.now();
    const reply = await respond(id);
    ms.push(elapsedMs(t0));
    replies.push(reply);
  });
  const wallMs = elapsedMs(started);
  const used = process.cpuUsage(cpu);
  const failures = replies.filter((reply) => !accept(reply)).length;
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

/** One server under test: a round is its untimed preparation, one timed phase, its checks. */
interface Side {
  round(concurrency: number): Promise<Phase>;
  close(): Promise<void>;
}

const ok200 = (reply: JsonReply) => reply.status === 200;

/** A floor's 200 must also say it claimed: each pending ID is responded to once. */
function claimedReply(reply: JsonReply): boolean {
  if (reply.status !== 200) return false;
  return (JSON.parse(reply.body) as { claimed?: unknown }).claimed === true;
}

async function clarionSide(sizes: BenchSizes): Promise<Side> {
  const instance = await startClarion('sqlite', undefined);
  const client = new BenchClient(instance.server.url);
  const close = async () => {
    client.close();
    await instance.close();
  };
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
    return {
      async round(concurrency) {
        const asks = [];
        for (const session of sessions) asks.push(await instance.ask(session, `floor ${tag++}`));
        const phase = await timedPhase(
          asks.map((ask) => ask.pendingId),
          concurrency,
          (id) => instance.respond(client, id),
          ok200,
        );
        const outcomes = await Promise.all(asks.map((ask) => ask.done));
        phase.failures += outcomes.filter((o) => !o.ok || o.outcome !== 'answered').length;
        return phase;
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** A floor server's side: `floorBatch` of its seeded pending IDs per round. */
function floorSide(
  floor: { url: string; pendingIds: string[]; close(): Promise<void> },
  sizes: BenchSizes,
): Side {
  const client = new BenchClient(floor.url);
  const respond = (id: string) =>
    client.post(`/api/v1/clarification/${id}/respond`, ANSWER, {
      authorization: `Bearer ${ADMIN_TOKEN}`,
    });
  const ids = [...floor.pendingIds];
  return {
    round: (concurrency) =>
      timedPhase(ids.splice(0, sizes.floorBatch), concurrency, respond, claimedReply),
    async close() {
      client.close();
      await floor.close();
    },
  };
}

export async function measureFloor(sizes: BenchSizes): Promise<FloorResult> {
  // The warm-up rounds, then `floorRounds` rounds at each of the two levels.
  const pending = sizes.floorBatch * (sizes.floorWarmupRounds + 2 * sizes.floorRounds);
  const opened: Side[] = [];
  try {
    const clarion = await clarionSide(sizes);
    opened.push(clarion);
    const sameWork = floorSide(
      await startSameWorkFloor({
        unrelated: sizes.small,
        pending,
        sessions: sizes.floorBatch,
        token: ADMIN_TOKEN,
      }),
      sizes,
    );
    opened.push(sameWork);
    const bare = floorSide(await startFloorServer({ unrelated: sizes.small, pending }), sizes);
    opened.push(bare);

    const sides = { clarion, sameWork, bare };
    const forward = ['clarion', 'sameWork', 'bare'] as const;
    // Untimed: Clarion's CPU per respond falls by half over its first ten rounds while
    // V8 optimizes its code, so a single warm-up round measured the JIT, not the server.
    for (let r = 0; r < sizes.floorWarmupRounds; r++) {
      for (const name of forward) await sides[name].round(sizes.concurrency);
    }
    const level = async (concurrency: number) => {
      const phases = { clarion: [] as Phase[], sameWork: [] as Phase[], bare: [] as Phase[] };
      for (let r = 0; r < sizes.floorRounds; r++) {
        const order = r % 2 === 0 ? forward : [...forward].reverse();
        for (const name of order) phases[name].push(await sides[name].round(concurrency));
      }
      return {
        clarion: toResult(concurrency, phases.clarion),
        sameWork: toResult(concurrency, phases.sameWork),
        bare: toResult(concurrency, phases.bare),
      };
    };
    const single = await level(1);
    const many = await level(sizes.concurrency);
    const levels = (name: keyof typeof sides): Levels => ({
      single: single[name],
      many: many[name],
    });
    const result = {
      unrelated: sizes.small,
      clarion: levels('clarion'),
      sameWork: levels('sameWork'),
      bare: levels('bare'),
    };
    return {
      ...result,
      ratios: {
        sameWork: floorRatios(result.clarion, result.sameWork),
        bare: floorRatios(result.clarion, result.bare),
      },
    };
  } finally {
    for (const side of opened.reverse()) await side.close();
  }
}

function floorRatios(clarion: Levels, floor: Levels): FloorRatios {
  return {
    throughputSingle: ratio(clarion.single.perSecond, floor.single.perSecond),
    throughputMany: ratio(clarion.many.perSecond, floor.many.perSecond),
    p50Single: ratio(clarion.single.latency.p50Ms, floor.single.latency.p50Ms),
    p99Many: ratio(clarion.many.latency.p99Ms, floor.many.latency.p99Ms),
    cpuPerRespond: ratio(clarion.many.cpuMsPerRespond, floor.many.cpuMsPerRespond),
  };
}
