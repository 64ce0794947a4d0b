import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, sql, type Generated } from 'kysely';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { withStatementCache } from './statement-cache.js';

describe('withStatementCache', () => {
  let database: BetterSqlite3.Database;
  let prepare: ReturnType<typeof vi.spyOn>;

  beforeEach(() => {
    database = new BetterSqlite3(':memory:');
    database.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
    prepare = vi.spyOn(database, 'prepare');
  });

  afterEach(() => {
    if (database.open) database.close();
  });

  it('prepares each SQL text once and runs it again with new parameters', () => {
    const cached = withStatementCache(database);
    cached.prepare('INSERT INTO t (v) VALUES (?)').run(['a']);
    cached.prepare('INSERT INTO t (v) VALUES (?)').run(['b']);
    expect(cached.prepare('SELECT v FROM t ORDER BY id').all([])).toEqual([{ v: 'a' }, { v: 'b' }]);
    expect(prepare).toHaveBeenCalledTimes(2);
  });

  it('keeps at most its capacity, dropping the least recently used first', () => {
    const cached = withStatementCache(database, 2);
    cached.prepare('SELECT 1');
    cached.prepare('SELECT 2');
    cached.prepare('SELECT 1'); // now the most recent
    cached.prepare('SELECT 3'); // evicts SELECT 2
    cached.prepare('SELECT 1');
    expect(prepare).toHaveBeenCalledTimes(3);
    cached.prepare('SELECT 2');
    expect(prepare).toHaveBeenCalledTimes(4);
  });

  it('never keeps a statement that failed to prepare', () => {
    const cached = withStatementCache(database);
    expect(() => cached.prepare('SELECT v FROM missing')).toThrow(/no such table/);
    database.exec('CREATE TABLE missing (v TEXT)');
    expect(cached.prepare('SELECT v FROM missing').all([])).toEqual([]);
  });

  it('sees schema changes made after a statement was kept', () => {
    const cached = withStatementCache(database);
    expect(cached.prepare('SELECT * FROM t').all([])).toEqual([]);
    database.exec("ALTER TABLE t ADD COLUMN w TEXT DEFAULT 'x'");
    database.exec("INSERT INTO t (v) VALUES ('a')");
    expect(cached.prepare('SELECT * FROM t').all([])).toEqual([{ id: 1, v: 'a', w: 'x' }]);
  });

  it('prepares EXPLAIN every time, so a plan reflects the indexes of now', () => {
    const cached = withStatementCache(database);
    database.exec('CREATE INDEX t_v ON t (v)');
    const explain = "EXPLAIN QUERY PLAN SELECT id FROM t WHERE v = 'a'";
    const detail = () =>
      (cached.prepare(explain).all([]) as { detail: string }[]).map((row) => row.detail).join();
    expect(detail()).toContain('t_v');
    database.exec('DROP INDEX t_v');
    expect(detail()).not.toContain('t_v');
  });

  it('serves Kysely, transactions included, and closes the database with it', async () => {
    const db = new Kysely<{ t: { id: Generated<number>; v: string } }>({
      dialect: new SqliteDialect({ database: withStatementCache(database) }),
    });
    for (let round = 0; round < 3; round++) {
      await db.transaction().execute(async (trx) => {
        await trx
          .insertInto('t')
          .values({ v: `r${String(round)}` })
          .execute();
      });
    }
    const rows = await db.selectFrom('t').select('v').orderBy('id').execute();
    expect(rows.map((row) => row.v)).toEqual(['r0', 'r1', 'r2']);
    await expect(sql`SELECT nope FROM t`.execute(db)).rejects.toThrow(/no such column/);
    // begin, insert, commit, select, and the failed one: each text prepared once.
    expect(prepare).toHaveBeenCalledTimes(5);
    await db.destroy();
    expect(database.open).toBe(false);
  });
});
