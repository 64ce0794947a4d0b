/**
 * The built `clarion serve` as a child process, for the benchmarks that
 * measure the server's own memory: in-process, the load generator's heap
 * would be counted too. Resident memory is read from `/proc/<pid>/status`
 * (Linux), which is what the operating system charges the server.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { DatabaseTarget } from '../src/store/index.js';
import { BUILT_CLI, builtPath } from '../src/support/index.js';
import { ADMIN_TOKEN } from './clarion-instance.js';

export interface ServerProcess {
  readonly url: string;
  readonly pid: number;
  /** Current and peak resident set size, in MiB. */
  memory(): Promise<{ rssMiB: number; peakMiB: number }>;
  /** SIGTERM, then the process's own orderly shutdown; SIGKILL after 10 s. */
  stop(): Promise<void>;
}

const SERVING_LINE = /Clarion is serving on (\S+)/;
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 10_000;

/** The built `clarion` command of this checkout, whether this file runs from `bench/` (vitest) or `dist/bench/`. */
function cliPath(): string {
  const cli = builtPath(BUILT_CLI);
  if (!existsSync(cli)) throw new Error(`${cli} is missing: build first (npm run build)`);
  return cli;
}

/** `env` adds settings, e.g. `CLARION_REPLICA_ID` for one of several replicas on one database. */
export async function startServerProcess(
  target: DatabaseTarget,
  env: Readonly<Record<string, string>> = {},
): Promise<ServerProcess> {
  // Node flags for the server alone, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile it.
  const flags = (process.env.CLARION_BENCH_SERVER_FLAGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...flags, cliPath(), 'serve'], {
    env: {
      PATH: process.env.PATH ?? '',
      CLARION_PORT: '0',
      CLARION_ADMIN_TOKEN: ADMIN_TOKEN,
      CLARION_LOG_LEVEL: 'warn',
      ...(target.driver === 'sqlite'
        ? { CLARION_DATA_DIR: target.dataDir }
        : { DATABASE_URL: target.url }),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error('clarion serve did not start');
  const exited = new Promise<void>((resolve) => {
    child.once('close', () => {
      resolve();
    });
  });
  const url = await servingUrl(child, exited);
  return {
    url,
    pid,
    memory: () => memoryOf(pid),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * Resolves with the URL the server prints once it serves. Its logs (level
 * `warn`, JSON lines on standard output) go on to this process's standard
 * error, so a run in which the server warns or fails says why; the one-time
 * sign-in line is a credential and is not passed on.
 */
function servingUrl(child: ChildProcess, exited: Promise<void>): Promise<string> {
  let head = '';
  let url: string | undefined;
  return new Promise((resolve, reject) => {
    const fail = (why: string) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`clarion serve ${why}: ${head.trim()}`));
    };
    const timer = setTimeout(() => {
      fail(`printed no URL in ${START_TIMEOUT_MS} ms`);
    }, START_TIMEOUT_MS);
    child.stderr?.on('data', (chunk: Buffer) => {
      if (url === undefined) head += chunk.toString();
      process.stderr.write(chunk);
    });
    if (!child.stdout) throw new Error('no stdout pipe');
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (url === undefined) {
        head += `${line}\n`;
        url = SERVING_LINE.exec(line)?.[1];
        if (url !== undefined) {
          clearTimeout(timer);
          resolve(url);
        }
      } else if (line.startsWith('{')) {
        process.stderr.write(`${line}\n`);
      }
    });
    void exited.then(() => {
      if (url === undefined) fail('exited before serving');
    });
  });
}

async function memoryOf(pid: number): Promise<{ rssMiB: number; peakMiB: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status);
    if (!match?.[1]) throw new Error(`no ${field} in /proc/${pid}/status`);
    return Number(match[1]);
  };
  return {
    rssMiB: Math.round((kib('VmRSS') / 1024) * 10) / 10,
    peakMiB: Math.round((kib('VmHWM') / 1024) * 10) / 10,
  };
}

export interface RssSample {
  /** Milliseconds since sampling started. */
  atMs: number;
  rssMiB: number;
}

export interface RssSampler {
  /** Stops sampling; returns every sample, one taken at the moment of stopping included. */
  stop(): Promise<RssSample[]>;
}

/** Samples the server's resident memory every `everyMs` until stopped. */
export function sampleRss(server: ServerProcess, everyMs: number): RssSampler {
  const started = performance.now();
  const samples: RssSample[] = [];
  let failure: Error | undefined;
  const take = async () => {
    const { rssMiB } = await server.memory();
    samples.push({ atMs: Math.round(performance.now() - started), rssMiB });
  };
  const timer = setInterval(() => {
    take().catch((error: unknown) => {
      failure ??= error instanceof Error ? error : new Error(String(error));
    });
  }, everyMs);
  return {
    async stop() {
      clearInterval(timer);
      await take();
      if (failure !== undefined) throw failure;
      return samples;
    },
  };
}
