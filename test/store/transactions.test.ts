/**
 * How the store runs writes under another party's lock and under faults:
 * the error that ended a transaction is the one reported, even when the
 * engine already rolled back; on SQLite, a lock another process holds is
 * waited for without stopping the event loop, within the caller's bound.
 */
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  SQLITE_FILE,
  StorageUnavailableError,
  createUser,
  getUser,
  openStore,
  type Store,
} from '../../src/store/index.js';
import { DRIVERS, freshDatabase, type TestDatabase } from '../support/databases.js';
import { holdSqliteLock, type HeldLock } from '../support/lock-holder.js';

/** The longest the event loop went without turning, by a 10 ms ticker, until stopped. */
function loopGaps(): { stop(): number } {
  let last = performance.now();
  let longest = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 10);
  return {
    stop() {
      clearInterval(ticker);
      return Math.max(longest, performance.now() - last);
    },
  };
}

describe.each(DRIVERS)('store transactions on %s', (driver) => {
  let database: TestDatabase;
  let store: Store;

  beforeEach(async () => {
    database = await freshDatabase(driver);
    store = await openStore(database.target);
  });

  afterEach(async () => {
    await store.close();
    await database.dispose();
  });

  it('reports the error that ended the work, even when the engine already rolled back', async () => {
    // What SQLite does by itself on a full disk or an I/O error; a second
    // ROLLBACK then fails with "no transaction is active".
    const work = store.transaction(async (tx) => {
      await createUser(tx, { name: 'rolled back' });
      await sql`ROLLBACK`.execute(tx.db);
      throw new Error('the cause');
    });
    await expect(work).rejects.toThrow('the cause');
    // The connection is usable afterwards, with no transaction left open.
    const user = await store.transaction((tx) => createUser(tx, { name: 'after' }));
    expect(await getUser(store, user.id)).toMatchObject({ name: 'after' });
  });
});

describe('sqlite writers under another process’s lock', () => {
  let database: TestDatabase;
  let store: Store;
  let lock: HeldLock | undefined;

  beforeEach(async () => {
    database = await freshDatabase('sqlite');
    store = await openStore(database.target);
  });

  afterEach(async () => {
    await lock?.released;
    lock = undefined;
    await store.close();
    await database.dispose();
  });

  function file(): string {
    if (database.target.driver !== 'sqlite') throw new Error('not SQLite');
    return join(database.target.dataDir, SQLITE_FILE);
  }

  it('waits for a brief lock asynchronously: writes land once it goes, the loop keeps turning', async () => {
    lock = await holdSqliteLock(file(), 1_000);
    const loop = loopGaps();
    const started = performance.now();
    const [inTransaction, alone] = await Promise.all([
      store.transaction((tx) => createUser(tx, { name: 'in a transaction' })),
      createUser(store, { name: 'on its own' }),
    ]);
    const elapsed = performance.now() - started;
    const longestGapMs = loop.stop();

    expect(await getUser(store, inTransaction.id)).toMatchObject({ name: 'in a transaction' });
    expect(await getUser(store, alone.id)).toMatchObject({ name: 'on its own' });
    // They waited for the lock (not failed at once) ...
    expect(elapsed).toBeGreaterThanOrEqual(500);
    // ... without a synchronous wait: the old busy timeout held the loop for the whole second.
    expect(longestGapMs).toBeLessThan(300);
  });

  it('gives up at the caller’s bound with a storage fault, and reads go on meanwhile', async () => {
    lock = await holdSqliteLock(file(), 2_000);
    const started = performance.now();
    const write = store.transaction((tx) => createUser(tx, { name: 'too late' }), {
      remainingMs: () => 300 - (performance.now() - started),
    });
    const read = store.ping();
    await expect(read).resolves.toBeUndefined();
    await expect(write).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(write).rejects.toMatchObject({ reason: 'lock_busy' });
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(1_500);
  });
});
