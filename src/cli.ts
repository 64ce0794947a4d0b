#!/usr/bin/env node
/**
 * `clarion serve`: what `npm start` runs. Start-up failures end with one line
 * on standard error and a non-zero exit, before anything is served.
 */
import { pino } from 'pino';
import { MCP_URL_ENV, runStdioBridge, TOKEN_ENV } from './agents/mcp/index.js';
import { BootstrapError } from './auth/bootstrap.js';
import { ConfigError, loadConfig } from './config.js';
import { exposureWarning } from './http/exposure.js';
import { createLogger } from './observability/logger.js';
import { ListenError, startServer } from './server.js';
import { DataDirLockedError, SchemaStepError, StoreOpenError } from './store/index.js';

const USAGE = 'usage: clarion serve | clarion mcp-stdio';

async function main(argv: readonly string[]): Promise<number> {
  const [command = 'serve', ...rest] = argv;
  if (rest.length > 0 || (command !== 'serve' && command !== 'mcp-stdio')) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  if (command === 'mcp-stdio') return mcpStdio();
  const config = loadConfig(process.env);
  const logger = createLogger(config.logLevel);
  const server = await startServer(config, logger);
  process.stdout.write(`Clarion is serving on ${server.url}\n`);
  process.stdout.write(`Sign in (one-time link): ${server.signInUrl}\n`);
  const exposed = exposureWarning(config.host, config.publicOrigin);
  if (exposed !== undefined) process.stderr.write(`clarion: warning: ${exposed}\n`);

  await new Promise<void>((resolve) => {
    const stop = () => {
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await server.close();
  return 0;
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
