/**
 * One fresh, empty database per call, on either driver, so the same test body
 * runs on SQLite and on a real PostgreSQL.
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

export async function freshDatabase(driver: Driver): Promise<TestDatabase> {
  if (driver === 'sqlite') {
    const dataDir = await mkdtemp(join(tmpdir(), 'clarion-test-sqlite-'));
    return {
      target: { driver, dataDir },
      dispose: () => rm(dataDir, { recursive: true, force: true }),
    };
  }
  const adminUrl = inject('pgAdminUrl');
  const name = `clarion_test_${randomBytes(6).toString('hex')}`;
  await withAdmin(adminUrl, (client) => client.query(`CREATE DATABASE ${name}`));
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

async function withAdmin<T>(adminUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
