/**
 * PostgreSQL for the bench, from the same source as the tests
 * (`test/support/embedded-postgres.ts`): an admin URL given by the caller
 * (the quick test passes the one vitest's global setup provides),
 * `CLARION_TEST_PG_URL`, or an `embedded-postgres` server started here and
 * stopped by `stop()`. Each data set gets its own database.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { DatabaseTarget } from '../src/store/index.js';
import { PG_SCHEMA_STEP_REPLY_MAX_MS } from '../src/tunables.js';
import { startPostgresServer } from '../test/support/embedded-postgres.js';

type BenchTarget = Extract<DatabaseTarget, { driver: 'postgres' }>;

export interface BenchPostgres {
  readonly adminUrl: string;
  /** A fresh, empty database; `drop` removes it. */
  createDatabase(): Promise<{ url: string; target: BenchTarget; drop(): Promise<void> }>;
  stop(): Promise<void>;
}

export async function startPostgres(adminUrl?: string): Promise<BenchPostgres> {
  if (adminUrl) return around(adminUrl, () => Promise.resolve());
  const server = await startPostgresServer('clarion-bench-pg');
  return around(server.adminUrl, () => server.stop());
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
        // The bench loads a million rows, and rebuilds indexes over them, in single
        // statements: they may wait for their reply as long as a schema step may.
        target: {
          driver: 'postgres',
          url: url.toString(),
          statementReplyMaxMs: PG_SCHEMA_STEP_REPLY_MAX_MS,
        },
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
