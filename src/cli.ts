#!/usr/bin/env node
/**
 * `clarion serve`: what `npm start` runs. Start-up failures end with one line
 * on standard error and a non-zero exit, before anything is served.
 * `clarion sign-in-link [--user NAME]` prints a fresh one-time link, whether
 * a server runs or not; `clarion mcp-stdio` relays an agent's stdio MCP.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { MCP_URL_ENV, runStdioBridge, TOKEN_ENV } from './agents/mcp/index.js';
import { BootstrapError } from './auth/bootstrap.js';
import { cliSignInLink } from './auth/index.js';
import { ReplicaIdInUseError } from './cluster/index.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { exposureWarning } from './http/exposure.js';
import { createLogger } from './observability/logger.js';
import { ListenError, startServer } from './server.js';
import {
  AGENT_KILL_WAIT_MS,
  AGENT_STOP_GRACE_MS,
  SHUTDOWN_DRAIN_MS,
  SHUTDOWN_STOP_MS,
} from './tunables.js';
import {
  DataDirLockedError,
  openStore,
  SchemaStepError,
  SQLITE_FILE,
  StoreOpenError,
} from './store/index.js';

const USAGE = 'usage: clarion serve | clarion sign-in-link [--user NAME] | clarion mcp-stdio';

async function main(argv: readonly string[]): Promise<number> {
  const [command = 'serve', ...rest] = argv;
  if (command === 'sign-in-link') return signInLink(rest);
  if (rest.length > 0 || (command !== 'serve' && command !== 'mcp-stdio')) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  if (command === 'mcp-stdio') return mcpStdio();
  const config = loadConfig(process.env);
  const logger = createLogger(config.logLevel);
  const server = await startServer(config, logger);
  // Before the line that says Clarion serves: a supervisor may stop it the moment it reads
  // that line, and a signal with no handler yet would kill the process without a shutdown.
  const stopRequested = new Promise<void>((resolve) => {
    const stop = () => {
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  process.stdout.write(`Clarion is serving on ${server.url}\n`);
  process.stdout.write(`Sign in (one-time link): ${server.signInUrl}\n`);
  const exposed = exposureWarning(config.host, config.publicOrigin);
  if (exposed !== undefined) process.stderr.write(`clarion: warning: ${exposed}\n`);

  await stopRequested;
  const boundMs = (config.drainDelayMs ?? 0) + SHUTDOWN_DRAIN_MS + SHUTDOWN_STOP_MS;
  const stop = await settleWithin(server.close(), boundMs);
  if (stop.outcome === 'done') return 0;
  const consequence =
    config.database.driver === 'postgres'
      ? 'stopping the agents and exiting; other replicas take its sessions over once its leases expire'
      : 'stopping the agents and exiting; its sessions recover at the next start';
  if (stop.outcome === 'late') {
    logger.error(
      { bound_ms: boundMs },
      `the stop did not finish in time (the database or an agent does not answer): ${consequence}`,
    );
  } else {
    // A step that fails (a database that refuses connections) leaves the rest of the stop
    // undone, heartbeat included, and a process that would never exit on its own.
    logger.error({ err: stop.error }, `the stop did not finish, a step failed: ${consequence}`);
  }
  const agentsStopMs =
    (config.agentTimings?.stopGraceMs ?? AGENT_STOP_GRACE_MS) + AGENT_KILL_WAIT_MS;
  await settleWithin(server.stopAgents(), agentsStopMs);
  // Whatever still waits (a statement that never answers) must not keep the process alive.
  process.exit(1);
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

/**
 * Mints a link through the store, as the server would: the same data
 * directory or database as `serve`. It never takes the server's data-dir
 * lock (a running server holds it; SQLite's WAL lets this second connection
 * write beside it), and every wait for the database's own lock is bounded by
 * the store (`STORE_LOCK_WAIT_MAX_MS`). Standard output holds the link alone,
 * for scripts; the rest goes to standard error.
 */
async function signInLink(args: readonly string[]): Promise<number> {
  const parsed = parseUserFlag(args);
  if (parsed === undefined) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const config = loadConfig(process.env);
  if (config.database.driver === 'sqlite') {
    const file = join(config.database.dataDir, SQLITE_FILE);
    // Opening would create an empty database here; say what is wrong instead.
    if (!existsSync(file)) {
      process.stderr.write(
        `clarion sign-in-link: no database at ${file}: run \`clarion serve\` once first ` +
          '(with the same CLARION_DATA_DIR)\n',
      );
      return 1;
    }
  }
  const store = await openStore(config.database);
  try {
    const result = await cliSignInLink(store, { user: parsed.user, origin: originOf(config) });
    if (!result.ok) {
      process.stderr.write(`clarion sign-in-link: ${result.message}\n`);
      return 1;
    }
    process.stdout.write(`${result.link.url}\n`);
    process.stderr.write(
      `One-time sign-in link for ${result.user.name}, valid until ${result.link.expires_at}\n`,
    );
    return 0;
  } finally {
    await store.close();
  }
}

/** `[]` or `['--user', NAME]` (also `--user=NAME`); `undefined` for anything else. */
function parseUserFlag(args: readonly string[]): { user?: string } | undefined {
  if (args.length === 0) return {};
  const [flag = '', value] = args;
  if (args.length === 1 && flag.startsWith('--user=') && flag.length > '--user='.length) {
    return { user: flag.slice('--user='.length) };
  }
  if (args.length === 2 && flag === '--user' && value) return { user: value };
  return undefined;
}

/** Where the link points: as the start-up link does, the public origin or the configured address. */
function originOf(config: Config): string {
  if (config.publicOrigin !== undefined) return config.publicOrigin;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return `http://${host}:${config.port}`;
}

/**
 * Relays an agent's stdio MCP to Clarion's `/mcp`. Standard output is the
 * protocol channel, so logs go to standard error.
 */
async function mcpStdio(): Promise<number> {
  const url = process.env[MCP_URL_ENV];
  const token = process.env[TOKEN_ENV];
  if (!url || !token) {
    process.stderr.write(`clarion mcp-stdio: set ${MCP_URL_ENV} and ${TOKEN_ENV}\n`);
    return 2;
  }
  const logger = pino({ level: 'warn' }, pino.destination(2));
  const bridge = await runStdioBridge({
    url,
    token,
    stdin: process.stdin,
    stdout: process.stdout,
    logger,
  });
  await bridge.closed;
  return 0;
}

/** Errors a person can act on get their own message; anything else is a bug and says so. */
function explain(error: unknown): string {
  if (error instanceof ConfigError) return `invalid configuration: ${error.message}`;
  if (error instanceof StoreOpenError) return error.message;
  if (error instanceof DataDirLockedError) return error.message;
  if (error instanceof SchemaStepError) return `database start-up failed: ${error.message}`;
  if (error instanceof ListenError) return error.message;
  if (error instanceof BootstrapError) return error.message;
  if (error instanceof ReplicaIdInUseError) return error.message;
  return `unexpected start-up failure: ${error instanceof Error ? error.message : String(error)}`;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`clarion: ${explain(error).replace(/\s+/g, ' ')}\n`);
    process.exitCode = 1;
  },
);
