/**
 * The SQLite data directory holds what other people on the machine must not
 * read: every question and answer, notification channels' webhook URLs and
 * tokens, the Web Push private key (`server_keys`). A directory and database
 * Clarion creates are its own user's alone, whatever the umask; the WAL and
 * its index take the database file's permissions from SQLite.
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, expect, it } from 'vitest';
import { SQLITE_FILE, lockDataDir, openStore, type Store } from '../../src/store/index.js';

let parent: string | undefined;
let store: Store | undefined;

afterEach(async () => {
  await store?.close();
  store = undefined;
  if (parent) await rm(parent, { recursive: true, force: true });
  parent = undefined;
});

async function othersMayAccess(path: string): Promise<number> {
  return (await stat(path)).mode & 0o077;
}

it('creates the data directory and the database readable by their owner alone', async () => {
  parent = await mkdtemp(join(tmpdir(), 'clarion-perm-'));
  const dataDir = join(parent, 'data');
  // As the server starts: the lock first, then the store.
  const lock = lockDataDir(dataDir);
  try {
    store = await openStore({ driver: 'sqlite', dataDir });
    await sql`CREATE TABLE probe (x TEXT)`.execute(store.db);
    await sql`INSERT INTO probe VALUES ('secret')`.execute(store.db);

    expect(await othersMayAccess(dataDir)).toBe(0);
    for (const file of [SQLITE_FILE, `${SQLITE_FILE}-wal`, `${SQLITE_FILE}-shm`]) {
      expect({ file, others: await othersMayAccess(join(dataDir, file)) }).toEqual({
        file,
        others: 0,
      });
    }
  } finally {
    lock.release();
  }
});

it('leaves the permissions of a directory the operator made alone', async () => {
  parent = await mkdtemp(join(tmpdir(), 'clarion-perm-'));
  const before = (await stat(parent)).mode;
  store = await openStore({ driver: 'sqlite', dataDir: parent });
  expect((await stat(parent)).mode).toBe(before);
});
