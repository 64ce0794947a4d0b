import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { cliSignInLink } from '../auth/index.js';
import { listenUrl, loadConfig, type Config } from '../config.js';
import { openStore, SQLITE_FILE } from '../store/index.js';
import { refused } from './usage.js';

/**
 * Mints a link through the store, as the server would: the same data
 * directory or database as `serve`. It never takes the server's data-dir
 * lock (a running server holds it; SQLite's WAL lets this second connection
 * write beside it), and every wait for the database's own lock is bounded by
 * the store (`STORE_LOCK_WAIT_MAX_MS`). Standard output holds the link alone,
 * for scripts; the rest goes to standard error.
 */
export async function signInLink(args: readonly string[]): Promise<number> {
  const parsed = parseUserFlag(args);
  if (parsed === undefined) {
    process.stderr.write(refused(['sign-in-link', ...args]));
    return 2;
  }
  const config = loadConfig(process.env);
  // Port 0 is a port the server picks as it starts: a link naming it would reach nothing.
  if (config.publicOrigin === undefined && config.port === 0) {
    process.stderr.write(
      'clarion sign-in-link: CLARION_PORT=0 names no port a link can point at (the server ' +
        'picks one as it starts): give the port the server printed, such as CLARION_PORT=7420, ' +
        'or set CLARION_PUBLIC_ORIGIN\n',
    );
    return 1;
  }
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
      `One-time sign-in link for ${result.user.name}, valid until ${readableTime(result.link.expires_at)}\n`,
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
  return config.publicOrigin ?? listenUrl(config.host, config.port);
}

/** A row timestamp (nanoseconds) as a person reads it: to the second, in UTC. */
function readableTime(timestamp: string): string {
  const ms = Date.parse(timestamp);
  return Number.isNaN(ms)
    ? timestamp
    : `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}
