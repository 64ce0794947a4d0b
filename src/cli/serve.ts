/**
 * `clarion serve`: what `npm start` runs. Start-up failures end with one line
 * on standard error and a non-zero exit, before anything is served; a stop
 * that does not finish within its bound still ends the process. A server
 * that must stop serving while it runs (another process took its replica ID)
 * stops as on SIGTERM, then ends the same way as a failed start. A second
 * SIGINT or SIGTERM during a stop forces it: every agent's process group is
 * killed at once and the process exits 1, writing nothing more to the store.
 * One during start-up stops the server as soon as start-up ends, never saying
 * it serves; a second one then ends the process at once.
 */
import { loadConfig } from '../config.js';
import { exposureWarning } from '../http/exposure.js';
import { createLogger, type Logger } from '../observability/logger.js';
import { startServer, type RunningServer } from '../server.js';
import {
  AGENT_KILL_WAIT_MS,
  AGENT_STOP_GRACE_MS,
  SHUTDOWN_DRAIN_MS,
  SHUTDOWN_STOP_MS,
} from '../tunables.js';

export async function serve(): Promise<number> {
  const config = loadConfig(process.env);
  const logger = createLogger(config.logLevel);
  const recovery =
    config.database.driver === 'postgres'
      ? 'other replicas take its sessions over once its leases expire'
      : 'its sessions recover at the next start';
  // Before start-up: a supervisor may stop Clarion at any moment, during a recovery that
  // restarts agents too, and a signal with no handler would kill the process without a shutdown.
  const signals = stopSignals(logger, recovery);
  const server = await startServer(config, logger);
  signals.started(server);
  // Asked to stop while starting: it never says it serves, so nothing is sent its way.
  if (!signals.stopAsked()) {
    process.stdout.write(`Clarion is serving on ${server.url}\n`);
    process.stdout.write(`Sign in (one-time link): ${server.signInUrl}\n`);
    const exposed = exposureWarning(config.host, config.publicOrigin);
    if (exposed !== undefined) process.stderr.write(`clarion: warning: ${exposed}\n`);
  }

  // Undefined: a signal asked for the stop.
  const failure = await Promise.race([signals.stopRequested, server.failed]);
  signals.stopBegun();
  if (failure) logger.error({ err: failure }, 'this server must stop serving; stopping');
  const boundMs =
    (config.drainDelayMs ?? 0) +
    (config.shutdownDrainMs ?? SHUTDOWN_DRAIN_MS) +
    (config.shutdownStopMs ?? SHUTDOWN_STOP_MS);
  const stop = await settleWithin(server.close(), boundMs);
  if (stop.outcome === 'done') {
    if (failure) throw failure;
    return 0;
  }
  const consequence = `stopping the agents and exiting; ${recovery}`;
  if (stop.outcome === 'late') {
    logger.error(
      { bound_ms: boundMs },
      `the stop did not finish in time (the database or an agent does not answer): ${consequence}`,
    );
  } else {
    // A step failed (a database that refuses connections); the others were done.
    logger.error({ err: stop.error }, `the stop did not finish, a step failed: ${consequence}`);
  }
  const agentsStopMs =
    (config.agentTimings?.stopGraceMs ?? AGENT_STOP_GRACE_MS) + AGENT_KILL_WAIT_MS;
  await settleWithin(server.stopAgents(), agentsStopMs);
  if (failure) process.stderr.write(`clarion: ${failure.message}\n`);
  // Whatever still waits (a statement that never answers) must not keep the process alive.
  process.exit(1);
}

interface StopSignals {
  /** Resolves when the first SIGINT or SIGTERM asks for a stop. */
  readonly stopRequested: Promise<undefined>;
  stopAsked(): boolean;
  /** Start-up ended: a forced stop kills this server's agents. */
  started(server: RunningServer): void;
  /** A stop runs, whatever began it: the next signal forces it. */
  stopBegun(): void;
}

/**
 * SIGINT and SIGTERM, handled for as long as the process lives: Node's default for a second
 * one would end it mid-stop, leaving the agents it started running in their own process groups.
 */
function stopSignals(logger: Logger, recovery: string): StopSignals {
  let server: RunningServer | undefined;
  let stopping = false;
  let askStop: () => void = () => undefined;
  const stopRequested = new Promise<undefined>((resolve) => {
    askStop = () => {
      resolve(undefined);
    };
  });
  const onSignal = (signal: NodeJS.Signals) => {
    if (!stopping) {
      stopping = true;
      logger.info(
        { signal },
        server
          ? `${signal}: stopping gracefully; a second SIGINT or SIGTERM forces it (the agents are killed at once)`
          : `${signal}: stopping once start-up ends; a second SIGINT or SIGTERM ends the process at once`,
      );
      askStop();
      return;
    }
    const killed = server?.killAgents() ?? 0;
    logger.error(
      { signal, agent_groups_killed: killed },
      `${signal}: stop forced by a second signal; every agent's process group killed, exiting with status 1; ${recovery}`,
    );
    process.exit(1);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    stopRequested,
    stopAsked: () => stopping,
    started: (running) => {
      server = running;
    },
    stopBegun: () => {
      stopping = true;
    },
  };
}

type Settled = { outcome: 'done' } | { outcome: 'failed'; error: unknown } | { outcome: 'late' };

/** How `work` settled within `ms`; it goes on either way. */
async function settleWithin(work: Promise<unknown>, ms: number): Promise<Settled> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Settled>((resolve) => {
    timer = setTimeout(() => {
      resolve({ outcome: 'late' });
    }, ms);
  });
  try {
    return await Promise.race([
      work.then(
        (): Settled => ({ outcome: 'done' }),
        (error: unknown): Settled => ({ outcome: 'failed', error }),
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
