/**
 * One agent child process and its ACP message stream. Owns the spawn, the
 * stdio wiring and the exit promise; knows nothing about sessions or turns.
 *
 * Invariants: the agent's stderr goes to the logger at debug, never to
 * Clarion's stdout; `exited` settles once, after the child's stdio closed.
 * The stream is tapped so the host sees every incoming message in arrival
 * order before the SDK dispatches it, and learns when an outgoing message
 * has been written to the agent's stdin.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { Readable, Writable } from 'node:stream';
import { ndJsonStream, type AnyMessage, type Stream } from '@agentclientprotocol/sdk';
import type { Logger } from '../../observability/index.js';
import { AgentHostError, errorText } from './errors.js';

export interface AgentExit {
  code: number | null;
  signal: string | null;
}

export interface AgentProcess {
  readonly pid: number;
  readonly stream: Stream;
  readonly exited: Promise<AgentExit>;
  hasExited(): boolean;
  kill(signal: NodeJS.Signals): void;
}

export interface SpawnAgentOptions {
  command: string;
  args: readonly string[];
  env: Readonly<Record<string, string>>;
  cwd: string;
  logger: Logger;
  /** Called for each incoming message, in arrival order, before the SDK handles it. */
  onIncoming(message: AnyMessage): void;
  /** Called once an outgoing message has been handed to the agent's stdin. */
  onWritten(message: AnyMessage): void;
}

/** Bounds one logged stderr line, so a runaway agent cannot flood the log. */
const MAX_STDERR_LINE_CHARS = 4000;

/** The environment an agent starts from; the profile's `env` goes on top. */
export function agentEnvironment(
  profileEnv: Readonly<Record<string, string>>,
  parent: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const base: Record<string, string> = {};
  if (parent.PATH !== undefined) base.PATH = parent.PATH;
  if (parent.HOME !== undefined) base.HOME = parent.HOME;
  return { ...base, ...profileEnv };
}

export async function spawnAgent(options: SpawnAgentOptions): Promise<AgentProcess> {
  const child = spawn(options.command, [...options.args], {
    cwd: options.cwd,
    env: agentEnvironment(options.env),
    stdio: ['pipe', 'pipe', 'pipe'],
    windowsHide: true,
  });
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', () => {
      resolve();
    });
    child.once('error', (error) => {
      reject(
        new AgentHostError('spawn_failed', `could not start ${options.command}: ${error.message}`, {
          cause: error,
        }),
      );
    });
  });
  const pid = child.pid;
  if (pid === undefined) throw new AgentHostError('spawn_failed', `${options.command} has no pid`);

  let exited = false;
  const exitedPromise = new Promise<AgentExit>((resolve) => {
    child.once('close', (code, signal) => {
      exited = true;
      resolve({ code, signal });
    });
  });
  child.on('error', (error) => {
    options.logger.warn({ pid, err: error }, 'agent process error');
  });
  // A dead agent makes stdin writes fail with EPIPE; the ACP connection
  // reports that through its own rejection, so here it is only logged.
  for (const stream of [child.stdin, child.stdout, child.stderr]) {
    stream.on('error', (error) => {
      options.logger.debug({ pid, err: error }, 'agent stdio error');
    });
  }
  createInterface({ input: child.stderr, crlfDelay: Infinity }).on('line', (line) => {
    options.logger.debug({ pid, line: line.slice(0, MAX_STDERR_LINE_CHARS) }, 'agent stderr');
  });

  const raw = ndJsonStream(
    Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
  );
  return {
    pid,
    stream: tapStream(raw, options),
    exited: exitedPromise,
    hasExited: () => exited,
    kill: (signal) => {
      if (exited) return;
      try {
        child.kill(signal);
      } catch (error) {
        options.logger.warn({ pid, signal, err: errorText(error) }, 'could not signal agent');
      }
    },
  };
}

function tapStream(
  stream: Stream,
  taps: Pick<SpawnAgentOptions, 'onIncoming' | 'onWritten'>,
): Stream {
  // The SDK writes one message at a time, so holding the inner writer for the
  // connection's lifetime keeps the order and lets a write resolve only once
  // the bytes reached stdin.
  const writer = stream.writable.getWriter();
  const writable = new WritableStream<AnyMessage>({
    async write(message) {
      await writer.write(message);
      taps.onWritten(message);
    },
    close: () => writer.close(),
    abort: (reason) => writer.abort(reason),
  });
  const readable = stream.readable.pipeThrough(
    new TransformStream<AnyMessage, AnyMessage>({
      transform(message, controller) {
        taps.onIncoming(message);
        controller.enqueue(message);
      },
    }),
  );
  return { writable, readable };
}
