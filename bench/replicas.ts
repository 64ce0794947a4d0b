/**
 * Benchmark 8: several servers on one PostgreSQL (issue 16).
 *
 * - Throughput (`replica-throughput.ts`): answers per second at
 *   `concurrency` responders through one `clarion serve` and through two
 *   replicas, in rounds ordered 1, 2, 2, 1, … (ABBA) so the machine's drift
 *   lands on both alike; each phase answers the same seeded set on a fresh
 *   database with fresh processes. The ratio is total answers over total
 *   timed wall time, two replicas over one.
 * - Cross-replica answer latency (`replica-latency.ts`): an agent waiting on
 *   replica A, answered through A or through B; cross p99 over same p99.
 */
import { cpus } from 'node:os';
import type { BenchSizes } from './options.js';
import type { BenchPostgres } from './postgres.js';
import { measureCrossLatency, type CrossLatencyResult } from './replica-latency.js';
import { throughputPhase, type ThroughputPhase } from './replica-throughput.js';
import { ratio, round } from './stats.js';

export interface ReplicaRate {
  replicas: number;
  responds: number;
  perSecond: number;
  failures: number;
  leftPending: number;
  /** Mean over the phases, ms per timed respond (see `ThroughputPhase`). */
  cpuMsPerRespond: { servers: number; database: number; generator: number };
}

export interface ReplicasResult {
  concurrency: number;
  /** Timed responds per phase (after `warmup` untimed ones), and phases per side. */
  respondsPerPhase: number;
  warmupPerPhase: number;
  rounds: number;
  one: ReplicaRate;
  two: ReplicaRate;
  phases: ThroughputPhase[];
  latency: CrossLatencyResult;
  ratios: {
    /** Answers/s through two replicas ÷ through one. */
    throughput: number;
    /**
     * What that ratio could be at most if CPU alone bound it, from the one-
     * replica phases: one server process uses at most one core, everything
     * together at most `cores`, and two replicas at most twice one:
     * `min(2, max(1, cores × server CPU ÷ all CPU))`.
     * Near 1 means one replica already saturates the machine.
     */
    throughputCeiling: number;
    /** Cross-replica ÷ same-replica, POST to the agent's tool result. */
    answerP99: number;
    answerP50: number;
    postP99: number;
  };
}

/** One seed for every phase: each answers an identical set. */
const SEED = 29;

export async function measureReplicas(
  postgres: BenchPostgres,
  sizes: BenchSizes,
  log: (line: string) => void = () => {},
): Promise<ReplicasResult> {
  const size = {
    concurrency: sizes.concurrency,
    warmup: sizes.replicaWarmup,
    responds: sizes.replicaResponds,
  };
  const order = Array.from({ length: sizes.replicaRounds }, (_, round) =>
    round % 2 === 0 ? [1, 2] : [2, 1],
  ).flat();
  const phases: ThroughputPhase[] = [];
  for (const replicas of order) {
    const phase = await throughputPhase(postgres, replicas, size, SEED);
    log(
      `replicas: ${replicas} serving, ${phase.responds} answers at ${size.concurrency} ` +
        `in ${round(phase.wallMs / 1000, 2)} s: ${phase.perSecond}/s, ${phase.failures} failed; ` +
        `CPU ms per answer: servers ${phase.cpuMsPerRespond.servers}, ` +
        `database ${phase.cpuMsPerRespond.database}, generator ${phase.cpuMsPerRespond.generator}`,
    );
    for (const line of phase.unexpected) log(`replicas: unexpected reply ${line}`);
    phases.push(phase);
  }
  const one = rate(phases, 1);
  const two = rate(phases, 2);

  const latency = await measureCrossLatency(
    postgres,
    sizes.replicaLatencyWarmup,
    sizes.replicaLatencySamples,
  );
  log(
    `replicas: answer p99 same ${latency.same.answer.p99Ms} ms, cross ${latency.cross.answer.p99Ms} ms, ` +
      `${latency.failures} failed`,
  );
  for (const line of latency.unexpected) log(`replicas: unexpected ${line}`);
  return {
    concurrency: size.concurrency,
    respondsPerPhase: size.responds,
    warmupPerPhase: size.warmup,
    rounds: sizes.replicaRounds,
    one,
    two,
    phases,
    latency,
    ratios: {
      throughput: ratio(two.perSecond, one.perSecond),
      throughputCeiling: ceiling(one),
      answerP99: ratio(latency.cross.answer.p99Ms, latency.same.answer.p99Ms),
      answerP50: ratio(latency.cross.answer.p50Ms, latency.same.answer.p50Ms),
      postP99: ratio(latency.cross.post.p99Ms, latency.same.post.p99Ms),
    },
  };
}

function ceiling(one: ReplicaRate): number {
  const { servers, database, generator } = one.cpuMsPerRespond;
  const all = servers + database + generator;
  return all > 0 ? round(Math.min(2, Math.max(1, (cpus().length * servers) / all))) : Number.NaN;
}

function rate(phases: readonly ThroughputPhase[], replicas: number): ReplicaRate {
  const mine = phases.filter((phase) => phase.replicas === replicas);
  const responds = mine.reduce((sum, phase) => sum + phase.responds, 0);
  const wallMs = mine.reduce((sum, phase) => sum + phase.wallMs, 0);
  const cpu = (of: (phase: ThroughputPhase) => number) =>
    mine.reduce((sum, phase) => sum + of(phase) * phase.responds, 0) / responds;
  return {
    replicas,
    responds,
    perSecond: wallMs > 0 ? round((responds / wallMs) * 1000, 1) : Number.NaN,
    failures: mine.reduce((sum, phase) => sum + phase.failures, 0),
    leftPending: mine.reduce((sum, phase) => sum + phase.leftPending, 0),
    cpuMsPerRespond: {
      servers: round(cpu((phase) => phase.cpuMsPerRespond.servers)),
      database: round(cpu((phase) => phase.cpuMsPerRespond.database)),
      generator: round(cpu((phase) => phase.cpuMsPerRespond.generator)),
    },
  };
}
