/**
 * SQLite's group commit (src/store/commit-group.ts): write transactions that
 * end in the same turn of the event loop share one `COMMIT`, and no caller
 * hears of a write, or reads one, before that `COMMIT` has returned. A
 * second connection to the same file plays the other process: what it sees
 * is what is on disk.
 */
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  SQLITE_FILE,
  StorageUnavailableError,
  createUser,
  openStore,
  type Store,
} from '../../src/store/index.js';
import { freshDatabase, type TestDatabase } from '../support/databases.js';

const diskFull = () => new BetterSqlite3.SqliteError('database or disk is full', 'SQLITE_FULL');
const busy = () => new BetterSqlite3.SqliteError('database is locked', 'SQLITE_BUSY');

describe('group commit on SQLite', () => {
  let database: TestDatabase;
  let store: Store;
  let outside: BetterSqlite3.Database;
  let commits: string[];
  /** How many `COMMIT`s to come fail, and how. */
  let failCommits: number;
  let failure: () => Error;

  beforeEach(async () => {
    database = await freshDatabase('sqlite');
    store = await openStore(database.target);
    if (database.target.driver !== 'sqlite') throw new Error('not SQLite');
    outside = new BetterSqlite3(join(database.target.dataDir, SQLITE_FILE), { readonly: true });
    commits = [];
    failCommits = 0;
    failure = diskFull;
    const original = Object.getOwnPropertyDescriptor(BetterSqlite3.prototype, 'exec')?.value as (
      this: BetterSqlite3.Database,
      source: string,
    ) => BetterSqlite3.Database;
    vi.spyOn(BetterSqlite3.prototype, 'exec').mockImplementation(function (
      this: BetterSqlite3.Database,
      source: string,
    ) {
      if (source === 'COMMIT') {
        commits.push(source);
        if (failCommits > 0) {
          failCommits -= 1;
          throw failure();
        }
      }
      return original.call(this, source);
    });
  });

  afterEach(async () => {
    vi.restoreAllMocks();
    outside.close();
    await store.close();
    await database.dispose();
  });

  /** Users on disk, as another connection reads them. */
  function onDisk(): string[] {
    const rows = outside.prepare('SELECT name FROM users ORDER BY name').all() as {
      name: string;
    }[];
    return rows.map((row) => row.name);
  }

  /** A transaction that adds one user and, when it resolves, notes whether the user was on disk. */
  function addUser(name: string) {
    return store.transaction((tx) => createUser(tx, { name })).then(() => onDisk().includes(name));
  }

  it('commits writes that end in the same turn once, and each caller hears after it', async () => {
    const names = Array.from({ length: 20 }, (_, i) => `user ${String(i).padStart(2, '0')}`);

    const durableWhenTold = await Promise.all(names.map(addUser));

    expect(durableWhenTold).toEqual(names.map(() => true));
    expect(commits).toHaveLength(1);
    expect(onDisk()).toEqual(names);
  });

  it('commits one after another when each writer waits for the last', async () => {
    for (const name of ['first', 'second', 'third']) expect(await addUser(name)).toBe(true);

    expect(commits).toHaveLength(3);
  });

  it('rolls back a failing write alone; the others in its group commit', async () => {
    const failing = store.transaction(async (tx) => {
      await createUser(tx, { name: 'failing' });
      throw new Error('the change failed');
    });

    const [before, , after] = await Promise.allSettled([
      addUser('before'),
      failing,
      addUser('after'),
    ]);

    expect(before).toEqual({ status: 'fulfilled', value: true });
    expect(after).toEqual({ status: 'fulfilled', value: true });
    await expect(failing).rejects.toThrow('the change failed');
    expect(onDisk()).toEqual(['after', 'before']);
    expect(commits).toHaveLength(1);
  });

  /** Users as a statement outside any transaction counts them, and how many were on disk when it answered. */
  function countUsers() {
    return sql<{ users: number }>`SELECT count(*) AS users FROM users`
      .execute(store.db)
      .then((result) => ({ users: result.rows[0]?.users, onDisk: onDisk().length }));
  }

  it('a failed commit fails every write of the group, and the next write commits', async () => {
    failCommits = 1;

    const outcomes = await Promise.allSettled([addUser('one'), addUser('two')]);

    for (const outcome of outcomes) {
      expect(outcome.status).toBe('rejected');
      const reason = (outcome as PromiseRejectedResult).reason as unknown;
      expect(reason).toBeInstanceOf(StorageUnavailableError);
      expect(reason).toMatchObject({ reason: 'disk_full' });
    }
    expect(onDisk()).toEqual([]);
    expect(await addUser('after the fault')).toBe(true);
  });

  /** A write whose work, once its user is added, starts `next`: it waits for the connection, so it runs right after the write, inside its group. */
  function writeThen<T>(name: string, next: () => Promise<T>) {
    let started: Promise<T> | undefined;
    const write = store.transaction(async (tx) => {
      await createUser(tx, { name });
      started = next();
      started.catch(() => undefined);
    });
    return {
      write,
      next: () => {
        if (started === undefined) throw new Error('the write never ran');
        return started;
      },
    };
  }

  it('a read that saw the group’s writes answers only once they are durable', async () => {
    const { write, next } = writeThen('written', countUsers);

    await write;
    expect(await next()).toEqual({ users: 1, onDisk: 1 });
  });

  it('a read that saw the group’s writes fails with them when the commit fails', async () => {
    failCommits = 1;
    const { write, next } = writeThen('lost', countUsers);

    await expect(write).rejects.toBeInstanceOf(StorageUnavailableError);
    // It counted the lost user; that answer must not get out.
    await expect(next()).rejects.toBeInstanceOf(StorageUnavailableError);
    expect(await countUsers()).toEqual({ users: 0, onDisk: 0 });
  });

  it('when SQLite ends the whole transaction, the writes already in the group are lost and told so', async () => {
    const { write: earlier, next: ending } = writeThen('earlier', () =>
      store.transaction(async (tx) => {
        await createUser(tx, { name: 'ending' });
        // What SQLite does by itself on a full disk or an I/O error.
        await sql`ROLLBACK`.execute(tx.db);
        throw new Error('the cause');
      }),
    );

    await expect(earlier).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(ending()).rejects.toThrow('the cause');
    expect(onDisk()).toEqual([]);
    expect(await addUser('after')).toBe(true);
  });

  it('tries a COMMIT that answers busy again, and writes that end meanwhile commit with it', async () => {
    failure = busy;
    failCommits = 3;
    const { write, next } = writeThen('first', () => addUser('joined while busy'));

    await write;
    expect(await next()).toBe(true);
    expect(onDisk()).toEqual(['first', 'joined while busy']);
    expect(commits).toHaveLength(4);
  });

  it('gives up on a COMMIT busy past the store-wide bound, and every write of the group fails', async () => {
    failure = busy;
    failCommits = Number.POSITIVE_INFINITY;

    const outcome = await Promise.allSettled([addUser('one'), addUser('two')]);

    for (const settled of outcome) {
      expect(settled).toMatchObject({ status: 'rejected', reason: { reason: 'lock_busy' } });
    }
    failCommits = 0;
    expect(onDisk()).toEqual([]);
    expect(await addUser('after')).toBe(true);
  });

  it('a store closed while its COMMIT answers busy fails the group and tries no COMMIT after', async () => {
    failure = busy;
    failCommits = Number.POSITIVE_INFINITY;
    const write = addUser('never');
    await vi.waitFor(() => {
      expect(commits.length).toBeGreaterThan(1);
    });

    await store.close();
    const triedBeforeClose = commits.length;
    await expect(write).rejects.toMatchObject({ reason: 'unreachable' });
    // Well past the retry's 1–2 ms backoff: a retry left pending would have tried by now.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(commits).toHaveLength(triedBeforeClose);
    failCommits = 0;
    expect(onDisk()).toEqual([]);
    store = await openStore(database.target);
  });
});
