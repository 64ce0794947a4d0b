/**
 * One agent child process and its ACP message stream: the supervisor of its
 * life. Owns the spawn, the stdio wiring, the stderr ring, the exit and the
 * bounded stop of the agent's whole process group; knows nothing about
 * sessions or turns.
 *
 * Invariants:
 * - The agent leads its own process group (`detached`), so a stop reaches
 *   whatever its wrapper started, even after the wrapper is gone.
 * - `exited` settles on the process's `exit`, then waits at most
 *   `pipeDrainMs` for its stdio to close and destroys it: a grandchild that
 *   keeps the pipes open cannot hold it.
 * - `stop` is SIGTERM to the group, SIGKILL to the group after `stopGraceMs`,
 *   and returns within `stopGraceMs + killWaitMs` plus the pipe drain,
 *   whatever the agent does.
 * - The agent's stderr goes to the logger at debug, never to Clarion's
 *   stdout; its last lines are kept for a failure to quote. What is held of
 *   it is bounded whatever the agent writes, a line without end included.
 * - The stream is tapped so the host sees every incoming message in arrival
 *   order before the SDK dispatches it, and learns when an outgoing message
 *   has been written to the agent's stdin.
 */
import { spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { ndJsonStream, type AnyMessage, type Stream } from '@agentclientprotocol/sdk';
import type { Logger } from '../../observability/index.js';
import type { Timers } from '../../support/index.js';
import {
  AGENT_GROUP_POLL_INTERVAL_MS,
  AGENT_KILL_WAIT_MS,
  AGENT_PIPE_DRAIN_MS,
  AGENT_STOP_GRACE_MS,
} from '../../tunables.js';
import { AgentHostError } from './errors.js';
import { groupAlive, signalGroup } from './process-group.js';
import { StderrLines } from './stderr-lines.js';
import { StderrRing } from './stderr-ring.js';

export interface AgentExit {
  code: number | null;
  signal: string | null;
}

export interface AgentProcess {
  readonly pid: number;
  readonly stream: Stream;
  /** Settles once, after the process exited and its pipes closed or were destroyed. */
  readonly exited: Promise<AgentExit>;
  hasExited(): boolean;
  /** The last lines of the agent's stderr, oldest first. */
  stderrTail(): string[];
  /** Ends the agent's whole process group, bounded; the same promise on every call. */
  stop(): Promise<void>;
}

export interface SpawnAgentOptions {
  command: string;
  args: readonly string[];
  env: Readonly<Record<string, string>>;
  /** Names of Clarion's own environment variables handed to the agent. */
  passEnv?: readonly string[];
  cwd: string;
  logger: Logger;
  timers: Timers;
  stopGraceMs?: number;
  killWaitMs?: number;
  pipeDrainMs?: number;
  /** Called for each incoming message, in arrival order, before the SDK handles it. */
  onIncoming(message: AnyMessage): void;
  /** Called once an outgoing message has been handed to the agent's stdin. */
  onWritten(message: AnyMessage): void;
  /** Called with the agent's process group ID as soon as it exists, before anything awaits. */
  onSpawned?(pgid: number): void;
}

/**
 * Bounds one stderr line, so a runaway agent can flood neither the log nor
 * the server's memory: a longer line is clipped as it arrives (`StderrLines`).
 */
const MAX_STDERR_LINE_CHARS = 4000;
/** What a failure may quote of an agent's stderr. */
const STDERR_TAIL_LINES = 20;
const STDERR_TAIL_CHARS = 4096;

/** The environment an agent starts from: PATH, HOME, the passed names, then the profile's `env`. */
export function agentEnvironment(
  profileEnv: Readonly<Record<string, string>>,
  passEnv: readonly string[] = [],
  parent: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const base: Record<string, string> = {};
  for (const name of ['PATH', 'HOME', ...passEnv]) {
    const value = parent[name];
    if (value !== undefined) base[name] = value;
  }
  return { ...base, ...profileEnv };
}

export async function spawnAgent(options: SpawnAgentOptions): Promise<AgentProcess> {
  const { logger, timers } = options;
  const stopGraceMs = options.stopGraceMs ?? AGENT_STOP_GRACE_MS;
  const killWaitMs = options.killWaitMs ?? AGENT_KILL_WAIT_MS;
  const pipeDrainMs = options.pipeDrainMs ?? AGENT_PIPE_DRAIN_MS;
  const child = spawn(options.command, [...options.args], {
    cwd: options.cwd,
    env: agentEnvironment(options.env, options.passEnv),
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
    windowsHide: true,
  });
  // Before the spawn event: whoever must be able to kill every agent at once knows it now.
  if (child.pid !== undefined) options.onSpawned?.(child.pid);
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

  let exit: AgentExit | undefined;
  const exited = new Promise<AgentExit>((resolve) => {
    child.once('exit', (code, signal) => {
      const settled = { code, signal };
      exit = settled;
      const finish = () => {
        drain.cancel();
        // A grandchild may still hold the pipes: nothing more from them is worth waiting for.
        for (const stream of [child.stdin, child.stdout, child.stderr]) stream.destroy();
        resolve(settled);
      };
      const drain = timers.setTimeout(finish, pipeDrainMs);
      child.once('close', finish);
    });
  });
  child.on('error', (error) => {
    logger.warn({ pid, err: error }, 'agent process error');
  });
  // A dead agent makes stdin writes fail with EPIPE; the ACP connection
  // reports that through its own rejection, so here it is only logged.
  for (const stream of [child.stdin, child.stdout, child.stderr]) {
    stream.on('error', (error) => {
      logger.debug({ pid, err: error }, 'agent stdio error');
    });
  }
  const stderr = tailStderr(child.stderr, pid, logger);

  /** Polls until `done` holds or `ms` pass; true when it held. */
  const waitUntil = (done: () => boolean, ms: number) =>
    new Promise<boolean>((resolve) => {
      const deadline = timers.setTimeout(() => {
        poll.cancel();
        resolve(done());
      }, ms);
      let poll: { cancel(): void } = { cancel: () => undefined };
      const check = () => {
        if (done()) {
          deadline.cancel();
          resolve(true);
          return;
        }
        poll = timers.setTimeout(check, AGENT_GROUP_POLL_INTERVAL_MS);
      };
      check();
    });
  const gone = () => exit !== undefined && !groupAlive(pid);
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      signalGroup(pid, 'SIGTERM');
      if (!(await waitUntil(gone, stopGraceMs))) {
        logger.warn({ pid, graceMs: stopGraceMs }, 'agent ignored SIGTERM; killing its group');
        signalGroup(pid, 'SIGKILL');
        if (!(await waitUntil(gone, killWaitMs))) {
          logger.error({ pid }, 'agent process group survived SIGKILL; giving up on it');
          return;
        }
      }
      await exited;
    })();
    return stopping;
  };

  const raw = ndJsonStream(
    Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
  );
  return {
    pid,
    stream: tapStream(raw, options),
    exited,
    hasExited: () => exit !== undefined,
    stderrTail: () => stderr.tail(),
    stop,
  };
}

/** Logs the agent's stderr line by line and keeps its last lines, holding a bounded part of it. */
function tailStderr(input: Readable, pid: number, logger: Logger): StderrRing {
  const ring = new StderrRing(STDERR_TAIL_LINES, STDERR_TAIL_CHARS);
  const lines = new StderrLines(MAX_STDERR_LINE_CHARS);
  const keep = (complete: readonly string[]) => {
    for (const line of complete) {
      ring.push(line);
      logger.debug({ pid, line }, 'agent stderr');
    }
  };
  input.on('data', (chunk: Buffer) => {
    keep(lines.push(chunk));
  });
  // Also after a destroy (the pipe drain's bound), which ends the stream without 'end'.
  input.once('close', () => {
    keep(lines.end());
  });
  return ring;
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
