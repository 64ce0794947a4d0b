/**
 * Runs the built `clarion serve` as a real child process, the way `npm start`
 * does. `npm test` builds `dist/` before the tests run.
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

function start(env: Record<string, string>, runAs?: RunAs): ChildProcess {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
  return spawn(process.execPath, [CLI, 'serve'], {
    env: { PATH: process.env.PATH ?? '', CLARION_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...runAs,
  });
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

/** Runs a start-up that is expected to fail, and returns once the process has ended. */
export async function runUntilExit(
  env: Record<string, string>,
  timeoutMs = 30_000,
  runAs?: RunAs,
): Promise<Exited> {
  const child = start(env, runAs);
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
  const child = start(env);
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
