/**
 * One fresh database per call, on either driver, so the same test body runs
 * on SQLite and on a real PostgreSQL: empty, or on PostgreSQL with the
 * current schema already in it when the caller opens it with the schema's
 * own steps anyway.
 *
 * A PostgreSQL database costs 0.2–0.5 s to create on a loaded machine, most
 * of it the server copying files while the test waits. So each worker keeps
 * one more of each kind (empty, migrated) in the making: a call takes the one
 * made ahead, still never used by anyone, and starts the next, which is
 * created while the test runs. Nothing is shared: each call's database is its
 * own, and `dispose` drops it. The one left over when a worker ends dies with
 * the run (the global teardown drops this run's databases on a server it did
 * not start).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { inject, test } from 'vitest';
import type { DatabaseTarget, Driver } from '../../src/store/index.js';

export const DRIVERS: readonly Driver[] = ['sqlite', 'postgres'];

/**
 * A test's options in a suite that runs beside its other databases' suites
 * (`describe.concurrent.each(DRIVERS)`): the suite's own tests still run one
 * after another, since they share its state (a database, a server, a harness).
 */
export const IN_ORDER = { concurrent: false } as const;

/** `it` for such a suite. */
export function inOrder(name: string, body: () => Promise<void> | void, timeoutMs?: number): void {
  test(name, { ...IN_ORDER, timeout: timeoutMs }, body);
}

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
  const name = await madeAhead(adminUrl, migrated ? inject('pgMigratedTemplate') : undefined);
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

/** Per server and template (`''` for an empty database): the next one, in the making. */
const spares = new Map<string, Promise<string>>();

/**
 * The name of a database nobody has used, from `template` if given: the one
 * made ahead if there is one (made again if that failed, so a lasting
 * failure is this call's own), and the next one started.
 */
function madeAhead(adminUrl: string, template: string | undefined): Promise<string> {
  const key = `${adminUrl} ${template ?? ''}`;
  const spare = spares.get(key);
  const next = createDatabase(adminUrl, template);
  // Its failure is seen by the call that takes it.
  next.catch(() => undefined);
  spares.set(key, next);
  return spare
    ? spare.catch(() => createDatabase(adminUrl, template))
    : createDatabase(adminUrl, template);
}

async function createDatabase(adminUrl: string, template: string | undefined): Promise<string> {
  const name = `${inject('pgDatabasePrefix')}${randomBytes(6).toString('hex')}`;
  const from = template ? ` TEMPLATE ${template}` : '';
  await withAdmin(adminUrl, (client) => client.query(`CREATE DATABASE ${name}${from}`));
  return name;
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
