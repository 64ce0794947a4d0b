/**
 * Runs the built `clarion` as a real child process: `serve` the way `npm
 * start` does, and the other commands as a script or an agent would. `npm
 * test` builds `dist/` before the tests run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import type { DatabaseTarget, Driver } from '../../src/store/index.js';
import { BUILT_CLI, builtPath } from '../../src/support/index.js';
import { freshDatabase, type TestDatabase } from './databases.js';

export const CLI = builtPath(BUILT_CLI);

export interface Exited {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface Serving {
  url: string;
  child: ChildProcess;
  /** Resolves when the process ends, however it ends. */
  exited: Promise<Exited>;
  /** What the process printed so far (the one-time sign-in link is on stdout). */
  output(): Exited;
  stop(): Promise<Exited>;
}

const SERVING_LINE = /Clarion is serving on (\S+)/;

/** Another user to run the server as (tests of permissions, which root would bypass). */
export interface RunAs {
  readonly uid: number;
  readonly gid: number;
}

function start(args: readonly string[], env: Record<string, string>, runAs?: RunAs): ChildProcess {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
  return spawn(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...runAs,
  });
}

/** `clarion serve` on any free port unless `env` names one. */
function startServe(env: Record<string, string>, runAs?: RunAs): ChildProcess {
  return start(['serve'], { CLARION_PORT: '0', ...env }, runAs);
}

function collect(child: ChildProcess): { exited: Promise<Exited>; output: () => Exited } {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<Exited>((resolve) => {
    child.once('close', (code, signal) => {
      resolve({ code, signal, stdout, stderr });
    });
  });
  return {
    exited,
    output: () => ({ code: child.exitCode, signal: child.signalCode, stdout, stderr }),
  };
}

/** Runs `clarion <args>` to its end, killed if it outlives `timeoutMs`. */
export async function runCommand(
  args: readonly string[],
  env: Record<string, string>,
  timeoutMs = 30_000,
): Promise<Exited> {
  return ended(start(args, env), timeoutMs);
}

/** Runs a start-up that is expected to fail, and returns once the process has ended. */
export function runUntilExit(
  env: Record<string, string>,
  timeoutMs = 30_000,
  runAs?: RunAs,
): Promise<Exited> {
  return ended(startServe(env, runAs), timeoutMs);
}

/** Starts `clarion serve` and returns at once, for a test that acts while it starts. */
export function startingServe(
  env: Record<string, string>,
  timeoutMs = 30_000,
): { child: ChildProcess; exited: Promise<Exited> } {
  const child = startServe(env);
  return { child, exited: ended(child, timeoutMs) };
}

async function ended(child: ChildProcess, timeoutMs: number): Promise<Exited> {
  const { exited } = collect(child);
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  try {
    return await exited;
  } finally {
    clearTimeout(timer);
  }
}

/** Starts a server and resolves once it says where it serves; rejects if it exits first. */
export async function startServing(
  env: Record<string, string>,
  timeoutMs = 30_000,
): Promise<Serving> {
  const child = startServe(env);
  const { exited, output } = collect(child);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no serving line within ${timeoutMs} ms: ${JSON.stringify(output())}`));
    }, timeoutMs);
    child.stdout?.on('data', () => {
      const match = SERVING_LINE.exec(output().stdout);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    void exited.then((result) => {
      clearTimeout(timer);
      reject(new Error(`exited before serving: ${JSON.stringify(result)}`));
    });
  });
  return {
    url,
    child,
    exited,
    output,
    stop: () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/** Whether the process has neither exited nor been ended by a signal yet. */
function running(server: Serving): boolean {
  return server.child.exitCode === null && server.child.signalCode === null;
}

/** The environment that points `clarion serve` at `target` (PostgreSQL leaves the data directory unused). */
export function databaseEnv(target: DatabaseTarget): Record<string, string> {
  return target.driver === 'sqlite'
    ? { CLARION_DATA_DIR: target.dataDir }
    : { DATABASE_URL: target.url, CLARION_DATA_DIR: join(tmpdir(), 'clarion-unused') };
}

/** A test's fresh database and the `clarion serve` processes it starts on it, one at a time. */
export interface ServedDatabase {
  readonly target: DatabaseTarget;
  /**
   * Starts `clarion serve` on the database with `env` added (an admin token,
   * failpoints, the port to keep). The process started before has ended.
   */
  serve(env?: Record<string, string>): Promise<Serving>;
}

/**
 * For suites that stop, kill and start `clarion serve` again on one database.
 * `open` makes the test's database; after each test the process started last
 * is stopped if it still runs, and the database is dropped. Call it in the
 * `describe`, before the suite's own `afterEach` (which then runs first).
 */
export function useServedDatabase(): { open(driver: Driver): Promise<ServedDatabase> } {
  let database: TestDatabase | undefined;
  let server: Serving | undefined;
  afterEach(async () => {
    if (server && running(server)) await server.stop();
    server = undefined;
    await database?.dispose();
    database = undefined;
  });
  return {
    async open(driver) {
      // `clarion serve` migrates with the default steps, so PostgreSQL starts from the migrated copy.
      database = await freshDatabase(driver, { migrated: true });
      const { target } = database;
      return {
        target,
        serve: async (env = {}) => {
          server = await startServing({ ...databaseEnv(target), ...env });
          return server;
        },
      };
    },
  };
}
