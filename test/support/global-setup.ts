/**
 * Gives every test file a real PostgreSQL for the whole run (see
 * `embedded-postgres.ts`): each test creates its own databases on it, empty
 * or copied from one migrated here once (`freshDatabase`'s `migrated`).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openStore } from '../../src/store/index.js';
import { startPostgresServer } from './embedded-postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string;
    /** A database with every schema step applied, for `CREATE DATABASE … TEMPLATE`. */
    pgMigratedTemplate: string;
    /** How the names of this run's test databases begin (`freshDatabase`). */
    pgDatabasePrefix: string;
  }
}

/**
 * The server and its data end with the run, so nothing need survive a crash of PostgreSQL
 * itself: no flush to disk at each commit, `CREATE DATABASE … TEMPLATE` or `DROP DATABASE`. A
 * commit is still seen by every other connection the moment it returns, and every process the
 * tests kill or stop is a client, never this server. On a busy machine the flushes cost a
 * PostgreSQL test's fresh database some 0.4 s of its 1 s. The benchmarks start their server
 * without these: what they time includes the flush.
 */
const THROW_AWAY_SETTINGS = {
  fsync: 'off',
  synchronous_commit: 'off',
  full_page_writes: 'off',
};

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startPostgresServer('clarion-test-pg', { settings: THROW_AWAY_SETTINGS });
  project.provide('pgAdminUrl', server.adminUrl);
  const template = await migratedTemplate(server.adminUrl);
  project.provide('pgMigratedTemplate', template.name);
  const prefix = `clarion_test_${randomBytes(4).toString('hex')}_`;
  project.provide('pgDatabasePrefix', prefix);
  return async () => {
    // The drop waits for a copy of the template still being made; then none is left to list.
    await template.drop();
    await dropLeftOver(server.adminUrl, prefix);
    await server.stop();
  };
}

/**
 * Drops the run's databases still there: each worker's one made ahead, and
 * any a failed test left. A server started here goes with its data anyway;
 * an external one (`CLARION_TEST_PG_URL`) keeps what is not dropped.
 */
async function dropLeftOver(adminUrl: string, prefix: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE starts_with(datname, $1)`,
      [prefix],
    );
    for (const { datname } of rows) {
      await client.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    }
  } finally {
    await client.end();
  }
}

/**
 * Migrated once by the store's own start-up; no connection may stay open to
 * it (PostgreSQL copies only a database nobody is connected to), so after
 * the store closed, none is allowed.
 */
async function migratedTemplate(adminUrl: string) {
  const name = `clarion_template_${randomBytes(6).toString('hex')}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const store = await openStore({ driver: 'postgres', url: url.toString() });
  await store.close();
  await admin(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS false`);
  return { name, drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
