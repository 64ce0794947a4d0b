/**
 * Runs the built `clarion` as a real child process: `serve` the way `npm
 * start` does, and the other commands as a script or an agent would. `npm
 * test` builds `dist/` before the tests run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../../dist/src/cli.js', import.meta.url));

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
