/**
 * One fresh database per call, on either driver, so the same test body runs
 * on SQLite and on a real PostgreSQL: empty, or on PostgreSQL with the
 * current schema already in it when the caller opens it with the schema's
 * own steps anyway.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import type { DatabaseTarget, Driver } from '../../src/store/index.js';

export const DRIVERS: readonly Driver[] = ['sqlite', 'postgres'];

export interface TestDatabase {
  readonly target: DatabaseTarget;
  dispose(): Promise<void>;
}

export interface FreshDatabaseOptions {
  /**
   * PostgreSQL only: a copy of the database the global setup migrated with
   * every schema step, so the caller's `openStore` finds its schema current
   * (a copy costs about half of creating and migrating one). Only for callers
   * that open it with the default steps; a test of the schema itself wants
   * the empty one. SQLite is always empty: its schema is quick to make.
   */
  readonly migrated?: boolean;
}

export async function freshDatabase(
  driver: Driver,
  { migrated = false }: FreshDatabaseOptions = {},
): Promise<TestDatabase> {
  if (driver === 'sqlite') {
    const dataDir = await mkdtemp(join(tmpdir(), 'clarion-test-sqlite-'));
    return {
      target: { driver, dataDir },
      dispose: () => rm(dataDir, { recursive: true, force: true }),
    };
  }
  const adminUrl = inject('pgAdminUrl');
  const name = `clarion_test_${randomBytes(6).toString('hex')}`;
  const template = migrated ? ` TEMPLATE ${inject('pgMigratedTemplate')}` : '';
  await withAdmin(adminUrl, (client) => client.query(`CREATE DATABASE ${name}${template}`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    target: { driver, url: url.toString() },
    dispose: async () => {
      await withAdmin(adminUrl, (client) =>
        client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
      );
    },
  };
}

/** `work` on a connection to the test PostgreSQL as its superuser, closed after. */
export function withPgAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  return withAdmin(inject('pgAdminUrl'), work);
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
