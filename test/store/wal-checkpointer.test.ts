import { existsSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { SQLITE_FILE, openStore, type Store } from '../../src/store/index.js';
import { startWalCheckpointer } from '../../src/store/wal-checkpointer.js';
import { insertUnrelatedMessages } from '../support/bulk.js';
import { eventually } from '../support/clarification-harness.js';

const PAGE = 4096;
/**
 * About 2,900 WAL pages in 16 commits: past SQLite's own 1,000-page checkpoint
 * threshold, well under the serving connection's 10,000-page backstop (20,000
 * rows came within a few pages of it and tripped it now and then).
 */
const ROWS = 8_000;
const BACKSTOP_PAGES = 10_000;
/** A few hundred pages: under it. */
const SMALL_ROWS = 2_000;
const HOUR_MS = 3_600_000;

describe('SQLite WAL checkpoints off the serving connection', () => {
  let dataDir: string;
  const cleanups: (() => Promise<void>)[] = [];

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function freshDir(): Promise<string> {
    dataDir = await mkdtemp(join(tmpdir(), 'clarion-test-wal-'));
    const dir = dataDir;
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    return dir;
  }

  async function open(checkpointIntervalMs: number, failures: Error[] = []): Promise<Store> {
    const store = await openStore(
      { driver: 'sqlite', dataDir: await freshDir() },
      { checkpointIntervalMs, onBackgroundFailure: (error) => failures.push(error) },
    );
    return store;
  }

  const fileSize = (name: string) => {
    const path = join(dataDir, name);
    return existsSync(path) ? statSync(path).size : 0;
  };

  it('commits past SQLite’s own threshold leave their pages to the worker', async () => {
    const store = await open(HOUR_MS);
    cleanups.push(() => store.close());
    const before = fileSize(SQLITE_FILE);

    await insertUnrelatedMessages(store, ROWS);

    // With SQLite's default, one of these commits would have copied them into the file.
    const walPages = fileSize(`${SQLITE_FILE}-wal`) / PAGE;
    expect(walPages).toBeGreaterThan(1_000);
    expect(walPages).toBeLessThan(BACKSTOP_PAGES / 2);
    expect(fileSize(SQLITE_FILE)).toBe(before);
    // Yet commits still checkpoint past a threshold of their own, which keeps the WAL bounded
    // under a steady stream of commits, where the worker's checkpoints never finish the log.
    const { rows } = await sql<{ wal_autocheckpoint: number }>`PRAGMA wal_autocheckpoint`.execute(
      store.db,
    );
    expect(rows[0]?.wal_autocheckpoint).toBe(BACKSTOP_PAGES);
  });

  it('the worker copies committed pages into the database file', async () => {
    const failures: Error[] = [];
    const store = await open(20, failures);
    cleanups.push(() => store.close());
    const before = fileSize(SQLITE_FILE);

    await insertUnrelatedMessages(store, SMALL_ROWS);

    await eventually(() => fileSize(SQLITE_FILE) > before + 50 * PAGE, 10_000);
    expect(failures).toEqual([]);
  });

  it('close checkpoints the rest and removes the WAL; every row is there on reopen', async () => {
    const store = await open(HOUR_MS);
    await insertUnrelatedMessages(store, ROWS);
    expect(fileSize(`${SQLITE_FILE}-wal`)).toBeGreaterThan(0);

    await store.close();

    expect(existsSync(join(dataDir, `${SQLITE_FILE}-wal`))).toBe(false);
    const reopened = await openStore({ driver: 'sqlite', dataDir });
    cleanups.push(() => reopened.close());
    const { count } = await reopened.db
      .selectFrom('task_session_messages')
      .select((eb) => eb.fn.countAll<string | number>().as('count'))
      .executeTakeFirstOrThrow();
    expect(Number(count)).toBe(ROWS);
  });

  it('a worker that fails hands the work back to the serving connection', async () => {
    const dir = await freshDir();
    const database = new BetterSqlite3(join(dir, SQLITE_FILE));
    cleanups.push(() => Promise.resolve(void database.close()));
    database.pragma('journal_mode = WAL');
    const failures: Error[] = [];

    // A database file the worker cannot open: the data directory went away under it.
    const checkpointer = startWalCheckpointer(database, join(dir, 'gone', SQLITE_FILE), {
      onFailure: (error) => failures.push(error),
    });
    expect(database.pragma('wal_autocheckpoint', { simple: true })).toBe(10_000);
    await checkpointer.ready;

    expect(failures).toHaveLength(1);
    expect(String(failures[0])).toMatch(/unable to open|does not exist|directory/i);
    expect(database.pragma('wal_autocheckpoint', { simple: true })).toBe(1_000);
    await expect(checkpointer.stop()).resolves.toBeUndefined();
  });
});
