/**
 * The store's PostgreSQL connections prepare statements by name
 * (`src/store/pg-prepared.ts`): each text is parsed once per connection and
 * then only bound, within a bound on how many a connection keeps, and a
 * statement whose columns change under it (a newer replica's schema step)
 * is answered outside a transaction and costs one failed transaction inside
 * one, not one per connection or per execution.
 */
import { sql } from 'kysely';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/index.js';
import { freshDatabase, type TestDatabase } from '../support/databases.js';

interface PreparedRow {
  name: string;
  statement: string;
  executions: number;
}

describe('prepared statements on postgres', () => {
  let database: TestDatabase | undefined;
  let store: Store | undefined;

  afterEach(async () => {
    await store?.close();
    store = undefined;
    await database?.dispose();
    database = undefined;
  });

  /** A store on one pooled connection, so every query below shares its prepared statements. */
  async function openOneConnection(preparedStatements?: number): Promise<Store> {
    database = await freshDatabase('postgres');
    const { target } = database;
    if (target.driver !== 'postgres') throw new Error('postgres only');
    store = await openStore(
      preparedStatements === undefined ? target : { ...target, preparedStatements },
      { poolSize: 1 },
    );
    return store;
  }

  /** Without values, so this query itself is never prepared. */
  async function prepared(on: Store): Promise<PreparedRow[]> {
    const { rows } = await sql<PreparedRow>`
      SELECT name, statement, (generic_plans + custom_plans)::int AS executions
        FROM pg_prepared_statements ORDER BY name`.execute(on.db);
    return rows;
  }

  async function plusOne(on: Store, value: number): Promise<number> {
    const { rows } = await sql<{ n: number }>`SELECT ${value}::int + 1 AS n`.execute(on.db);
    return rows[0]?.n ?? Number.NaN;
  }

  it('parses a statement with values once on a connection and then only binds it', async () => {
    const on = await openOneConnection();
    // Start-up's schema steps prepared their own reads already.
    const before = (await prepared(on)).length;

    expect([await plusOne(on, 1), await plusOne(on, 41), await plusOne(on, -1)]).toEqual([
      2, 42, 0,
    ]);

    expect(await prepared(on)).toHaveLength(before + 1);
    const rows = (await prepared(on)).filter((row) => row.statement.includes('+ 1 AS n'));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ statement: 'SELECT $1::int + 1 AS n', executions: 3 });
    expect(rows[0]?.name).toMatch(/^clarion_\d+_\d+$/);
  });

  it('names at most the configured number of texts; later ones run unnamed and still answer', async () => {
    const on = await openOneConnection(5);
    const before = (await prepared(on)).length;
    expect(before).toBeLessThan(5);
    const texts = await Promise.all(
      [1, 2, 3, 4].map(async (k) => {
        const { rows } = await sql<{ n: number }>`SELECT ${k}::int * ${sql.lit(k)} AS n`.execute(
          on.db,
        );
        return rows[0]?.n;
      }),
    );
    expect(texts).toEqual([1, 4, 9, 16]);
    expect(await prepared(on)).toHaveLength(5);
    expect(before + 4).toBeGreaterThan(5);
  });

  it('prepares nothing when turned off, and nothing for statements without values', async () => {
    const off = await openOneConnection(0);
    expect(await plusOne(off, 1)).toBe(2);
    await sql`SELECT 1`.execute(off.db);
    expect(await prepared(off)).toEqual([]);
  });

  it('a statement that fails to parse is not kept: it fails the same way again and others go on', async () => {
    const on = await openOneConnection();
    const broken = () => sql`SELECT missing FROM no_such_table WHERE x = ${1}`.execute(on.db);
    await expect(broken()).rejects.toMatchObject({ code: '42P01' });
    await expect(broken()).rejects.toMatchObject({ code: '42P01' });
    expect(await plusOne(on, 2)).toBe(3);
  });

  /** A newer replica's schema step, from its own connection. */
  async function widen(table: string): Promise<void> {
    if (database?.target.driver !== 'postgres') throw new Error('postgres only');
    const other = new pg.Client({ connectionString: database.target.url });
    await other.connect();
    try {
      await other.query(`ALTER TABLE ${table} ADD COLUMN b int`);
    } finally {
      await other.end();
    }
  }

  const readIn = (db: Store['db']) =>
    sql<Record<string, unknown>>`SELECT * FROM widened WHERE a = ${7}`.execute(db);

  it('a read outside a transaction whose columns changed under it is answered, in the new shape', async () => {
    const on = await openOneConnection();
    await sql`CREATE TABLE widened (a int)`.execute(on.db);
    await sql`INSERT INTO widened (a) VALUES (${7})`.execute(on.db);
    expect((await readIn(on.db)).rows).toEqual([{ a: 7 }]);

    await widen('widened');

    expect((await readIn(on.db)).rows).toEqual([{ a: 7, b: null }]);
    expect((await readIn(on.db)).rows).toEqual([{ a: 7, b: null }]);
  });

  it('a transaction that meets it fails once, and the pool’s other connections prepare the new shape', async () => {
    database = await freshDatabase('postgres');
    const { target } = database;
    if (target.driver !== 'postgres') throw new Error('postgres only');
    const on = await openStore(target, { poolSize: 2 });
    store = on;
    await sql`CREATE TABLE widened (a int)`.execute(on.db);
    await sql`INSERT INTO widened (a) VALUES (${7})`.execute(on.db);
    /** Two transactions at once, so both connections run (and prepare) the read. */
    const readTwice = async () => {
      let arrived = 0;
      let release: () => void = () => undefined;
      const both = new Promise<void>((resolve) => {
        release = resolve;
      });
      return Promise.all(
        [0, 1].map(() =>
          on.db.transaction().execute(async (tx) => {
            const { rows } = await readIn(tx);
            arrived += 1;
            if (arrived === 2) release();
            await both;
            return rows;
          }),
        ),
      );
    };
    expect(await readTwice()).toEqual([[{ a: 7 }], [{ a: 7 }]]);

    await widen('widened');

    // The transaction is lost with the statement: it fails, and only once.
    await expect(on.db.transaction().execute((tx) => readIn(tx))).rejects.toMatchObject({
      code: '0A000',
    });
    expect(await readTwice()).toEqual([[{ a: 7, b: null }], [{ a: 7, b: null }]]);
  });
});
