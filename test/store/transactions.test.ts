/**
 * How the store runs writes under another party's lock and under faults:
 * the error that ended a transaction is the one reported, even when the
 * engine already rolled back; on SQLite, a lock another process holds is
 * waited for without stopping the event loop, within the caller's bound; on
 * PostgreSQL, a transaction begins bounded and holding its session's lock.
 */
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  SQLITE_FILE,
  StorageUnavailableError,
  createUser,
  isStorageUnavailable,
  getUser,
  openStore,
  type Store,
} from '../../src/store/index.js';
import { PG_IDLE_IN_TRANSACTION_MAX_MS, STORE_LOCK_WAIT_MAX_MS } from '../../src/tunables.js';
import { DRIVERS, freshDatabase, type TestDatabase } from '../support/databases.js';
import { holdSqliteLock, type HeldProcessLock } from '../support/lock-holder.js';

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
    database = await freshDatabase(driver, { migrated: true });
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
  let lock: HeldProcessLock | undefined;

  beforeEach(async () => {
    database = await freshDatabase('sqlite');
    store = await openStore(database.target);
  });

  afterEach(async () => {
    // Let go now: a test that gave up on the lock proved what it set out to by then.
    await lock?.release();
    lock = undefined;
    await store.close();
    await database.dispose();
  });

  function file(): string {
    if (database.target.driver !== 'sqlite') throw new Error('not SQLite');
    return join(database.target.dataDir, SQLITE_FILE);
  }

  it('waits for a brief lock asynchronously: writes land once it goes, the loop keeps turning', async () => {
    lock = await holdSqliteLock(file(), 2_000);
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
    // ... without a synchronous wait: a busy timeout would hold the loop for the lock's two
    // seconds. Half of that leaves room for a loaded machine's pauses (300 ms was seen).
    expect(longestGapMs).toBeLessThan(1_000);
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

describe('postgresql transactions that begin bounded and holding a session lock', () => {
  let database: TestDatabase;
  let store: Store;
  let holder: pg.Client | undefined;

  beforeEach(async () => {
    database = await freshDatabase('postgres', { migrated: true });
    store = await openStore(database.target);
  });

  afterEach(async () => {
    await holder?.end();
    holder = undefined;
    await store.close();
    await database.dispose();
  });

  /**
   * Fails unless `work` rejects with the bound's cut: `statement_timeout`, or
   * `lock_timeout` (a busy lock), whichever fires first.
   */
  async function expectBoundRanOut(work: Promise<unknown>): Promise<void> {
    const error = await work.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    if (isStorageUnavailable(error)) {
      expect(error).toMatchObject({ reason: 'lock_busy', engineCode: '55P03' });
    } else {
      expect((error as { code?: unknown } | undefined)?.code).toBe('57014');
    }
  }

  /** Another connection holding `sessionId`'s writers' lock, as a writer elsewhere would. */
  async function holdSessionLock(sessionId: string): Promise<pg.Client> {
    if (database.target.driver !== 'postgres') throw new Error('not PostgreSQL');
    const client = new pg.Client({ connectionString: database.target.url });
    await client.connect();
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
      `task-session:${sessionId}`,
    ]);
    return client;
  }

  it('bounds every statement by the budget left as it begins', async () => {
    const shown = await store.transaction(
      async (tx) => {
        const timeouts = await sql<{ statement: string; lock: string }>`
          SELECT current_setting('statement_timeout') AS statement,
                 current_setting('lock_timeout') AS lock`.execute(tx.db);
        return timeouts.rows[0];
      },
      { remainingMs: () => 1_234.2 },
    );
    expect(shown).toEqual({ statement: '1235ms', lock: '1235ms' });
  });

  it('waits for the session lock another writer holds, up to its bound, and leaves nothing open', async () => {
    holder = await holdSessionLock('s-1');
    let ran = false;
    const started = performance.now();
    const write = store.transaction(
      async (tx) => {
        ran = true;
        return createUser(tx, { name: 'too late' });
      },
      { lockSession: 's-1', remainingMs: () => 300 },
    );
    await expectBoundRanOut(write);
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(ran).toBe(false);

    // Another session's writers do not wait for that lock, and the connection
    // the failed begin used is back in the pool with no transaction open.
    const other = await store.transaction((tx) => createUser(tx, { name: 'other session' }), {
      lockSession: 's-2',
    });
    expect(await getUser(store, other.id)).toMatchObject({ name: 'other session' });

    // Once the holder commits, the same session's write goes through.
    const waiting = store.transaction((tx) => createUser(tx, { name: 'after the holder' }), {
      lockSession: 's-1',
    });
    await holder.query('COMMIT');
    const after = await waiting;
    expect(await getUser(store, after.id)).toMatchObject({ name: 'after the holder' });
  });

  it('gives up a session lock held past the store’s bound, with no budget, as a busy lock', async () => {
    // A writer elsewhere froze holding the lock (a stopped replica): nothing waits for it forever.
    holder = await holdSessionLock('s-1');
    const started = performance.now();
    const write = store.transaction((tx) => createUser(tx, { name: 'blocked' }), {
      lockSession: 's-1',
    });
    const error = await write.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    const waitedMs = performance.now() - started;
    expect(error).toBeInstanceOf(StorageUnavailableError);
    expect(error).toMatchObject({ reason: 'lock_busy', engineCode: '55P03' });
    expect(waitedMs).toBeGreaterThanOrEqual(STORE_LOCK_WAIT_MAX_MS - 100);
    expect(waitedMs).toBeLessThan(STORE_LOCK_WAIT_MAX_MS + 5_000);
  });

  it('opens every connection with the lock-wait and idle-transaction bounds', async () => {
    const shown = await sql<{ lock: string; idle: string }>`
      SELECT current_setting('lock_timeout') AS lock,
             current_setting('idle_in_transaction_session_timeout') AS idle`.execute(store.db);
    expect(shown.rows[0]).toEqual({
      lock: `${String(STORE_LOCK_WAIT_MAX_MS / 1000)}s`,
      idle: `${String(PG_IDLE_IN_TRANSACTION_MAX_MS / 1000)}s`,
    });
  });

  it('takes the same lock as the dialect’s lockSession, whatever the session ID holds', async () => {
    // Quotes and a backslash: the ID goes into the begin's text as a literal.
    const sessionId = `it's a \\ test`;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const holding = new Promise<void>((resolve) => (locked = resolve));
    const first = store.transaction(
      async () => {
        locked();
        await released;
      },
      { lockSession: sessionId },
    );
    await holding;
    try {
      const second = store.transaction((tx) => tx.dialect.lockSession(tx.db, sessionId), {
        remainingMs: () => 300,
      });
      await expectBoundRanOut(second);
    } finally {
      release();
      await first;
    }
  });
});
