/**
 * Named prepared statements for `pg`, which otherwise sends every statement
 * that has values unnamed, so PostgreSQL parses, analyses and plans it again
 * on every execution. Measured under the two-replica respond load (benchmark
 * 8, `pg_stat_statements`): planning alone was 3.58 ms of the backends'
 * 8.4 ms of CPU per answer, for 22 statements whose text never changes.
 *
 * Invariants: a text gets one name for the life of the process, and a name
 * never stands for another text (`pg` refuses a name reused with other text);
 * at most `capacity` texts are named and later ones go unnamed, so no
 * connection holds more than `capacity` prepared statements, whatever SQL
 * with varying list lengths comes by; a statement without values keeps the
 * simple protocol, since schema steps send several statements in one text,
 * which the extended protocol refuses. A named statement is prepared on each
 * connection the first time that connection runs it; a connection that is
 * dropped takes its statements with it.
 *
 * A newer server's schema step that adds a column (a rolling upgrade) changes
 * what `select *` returns, and PostgreSQL then refuses that statement on every
 * connection that prepared it ("cached plan must not change result type").
 * Outside a transaction the statement is sent again at once, unnamed, and
 * answers; inside one the transaction is lost with it, so it fails. Either
 * way the connection is dropped rather than returned to the pool, and every
 * text is named afresh from then on, so the pool's other connections prepare
 * the new shape instead of each failing once in turn.
 */
import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import type pg from 'pg';
import type { ReplyBound } from './pg-reply-bound.js';

export const DEFAULT_PREPARED_STATEMENTS = 256;

/** Names for statement texts; shared by every connection of one pool. */
class StatementNames {
  #names = new Map<string, string>();
  #generation = 1;

  constructor(private readonly capacity: number) {}

  /** The text's name, or `undefined` once `capacity` texts have one. */
  nameFor(text: string): string | undefined {
    const kept = this.#names.get(text);
    if (kept !== undefined || this.#names.size >= this.capacity) return kept;
    const name = `clarion_${this.#generation}_${this.#names.size + 1}`;
    this.#names.set(text, name);
    return name;
  }

  /** A statement's columns changed under it: every text is named (and so prepared) afresh. */
  renew(): void {
    this.#generation += 1;
    this.#names = new Map();
  }
}

/**
 * `pool` as Kysely's PostgreSQL driver sees it: at most `capacity` texts named
 * (0 names none), and every statement's reply awaited within `bound`
 * (`pg-reply-bound.ts`).
 */
export function preparingPool(pool: pg.Pool, capacity: number, bound: ReplyBound): PostgresPool {
  const names = new StatementNames(capacity);
  return {
    connect: async () => preparingClient(await pool.connect(), names, bound),
    end: () => pool.end(),
  };
}

const TRANSACTION_BEGINS = /^\s*(begin|start\s+transaction)\b/i;
/** Not `rollback to savepoint`: the transaction goes on after it. */
const TRANSACTION_ENDS = /^\s*(commit|end|rollback(?!\s+to\b))\b/i;

/** SQLSTATE 0A000 with this message: a prepared statement's result columns changed under it. */
function isStalePlan(error: unknown): boolean {
  return (
    error instanceof Error &&
    (error as { code?: unknown }).code === '0A000' &&
    /cached plan must not change result type/.test(error.message)
  );
}

function preparingClient(
  client: pg.PoolClient,
  names: StatementNames,
  bound: ReplyBound,
): PostgresPoolClient {
  let stale = false;
  // Kysely opens and ends its transactions with statements of their own: a stale plan inside
  // one has lost the transaction, outside one the statement may simply be sent again.
  let inTransaction = false;
  // Checked out, a client has none of the pool's listeners: a connection that ends now (a
  // restart, an admin, the network) would throw its 'error' event at the process. Its
  // statement fails by itself; the client is dropped when it comes back.
  let lost = false;
  const onError = () => {
    lost = true;
  };
  client.on('error', onError);
  // With a statement in flight, `end` destroys the socket: what is queued behind it fails now.
  const drop = () => {
    lost = true;
    void client.end().catch(() => undefined);
  };
  function query<R>(sql: string, parameters: readonly unknown[]): Promise<PostgresQueryResult<R>>;
  function query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  function query<R>(
    sqlOrCursor: string | PostgresCursor<R>,
    parameters: readonly unknown[] = [],
  ): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    // A cursor reads as its caller pulls; Clarion streams nothing, so none is bounded here.
    if (typeof sqlOrCursor !== 'string') {
      return client.query(sqlOrCursor as unknown as pg.Submittable) as unknown as PostgresCursor<R>;
    }
    const text = sqlOrCursor;
    if (TRANSACTION_BEGINS.test(text)) inTransaction = true;
    else if (TRANSACTION_ENDS.test(text)) inTransaction = false;
    const name = parameters.length > 0 ? names.nameFor(text) : undefined;
    // Kysely's driver passes a fresh copy of the values; `pg` only reads them.
    const values = parameters as unknown[];
    const reply =
      name === undefined
        ? client.query(text, values)
        : client.query({ name, text, values }).catch((error: unknown) => {
            if (!isStalePlan(error)) throw error;
            if (!stale) names.renew();
            stale = true;
            if (inTransaction) throw error;
            return client.query(text, values);
          });
    return bound.wait(reply, drop) as unknown as Promise<PostgresQueryResult<R>>;
  }
  return {
    query,
    release: (destroy) => {
      client.removeListener('error', onError);
      client.release(destroy === true || stale || lost);
    },
  };
}
