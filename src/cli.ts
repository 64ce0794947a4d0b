#!/usr/bin/env node
/**
 * `clarion serve`: what `npm start` runs. Start-up failures end with one line
 * on standard error and a non-zero exit, before anything is served.
 */
import { BootstrapError } from './auth/bootstrap.js';
import { ConfigError, loadConfig } from './config.js';
import { createLogger } from './observability/logger.js';
import { ListenError, startServer } from './server.js';
import { SchemaStepError, StoreOpenError } from './store/index.js';

const USAGE = 'usage: clarion serve';

async function main(argv: readonly string[]): Promise<number> {
  const [command = 'serve', ...rest] = argv;
  if (command !== 'serve' || rest.length > 0) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const config = loadConfig(process.env);
  const logger = createLogger(config.logLevel);
  const server = await startServer(config, logger);
  process.stdout.write(`Clarion is serving on ${server.url}\n`);
  process.stdout.write(`Sign in (one-time link): ${server.signInUrl}\n`);

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

/** Errors a person can act on get their own message; anything else is a bug and says so. */
function explain(error: unknown): string {
  if (error instanceof ConfigError) return `invalid configuration: ${error.message}`;
  if (error instanceof StoreOpenError) return error.message;
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
