/**
 * What every connection Clarion opens to PostgreSQL carries, so that none of
 * them waits without a bound:
 *
 * - the connect handshake gives up after `PG_CONNECT_TIMEOUT_MS`;
 * - the two server-side bounds that follow are set by `boundSession` once
 *   the connection is open, not asked for in its startup packet: a pooler
 *   (PgBouncer, which the README advises for several servers) refuses a
 *   connection whose startup packet names a setting it does not know;
 * - a wait for a lock another connection holds gives up after
 *   `STORE_LOCK_WAIT_MAX_MS` (`55P03`, read as `lock_busy` like SQLite's busy
 *   lock); a caller's budget may shorten it for one transaction;
 * - a transaction left idle past `PG_IDLE_IN_TRANSACTION_MAX_MS` (its replica
 *   frozen, its network cut) is ended by the server, so the session locks it
 *   held are free before another replica's takeover needs them;
 * - TCP keepalive probes an idle connection after `PG_KEEPALIVE_IDLE_MS`, so a
 *   server that vanished without closing is found by the operating system
 *   rather than never;
 * - a statement's reply is awaited at most `PG_STATEMENT_REPLY_MAX_MS`: the
 *   pool's statements through `pg-reply-bound.ts`, a dedicated connection's
 *   (the wake listener, the replica lock) through `pg`'s own `query_timeout`,
 *   after which its owner ends it.
 */
import type pg from 'pg';
import {
  PG_CONNECT_TIMEOUT_MS,
  PG_IDLE_IN_TRANSACTION_MAX_MS,
  PG_KEEPALIVE_IDLE_MS,
  PG_STATEMENT_REPLY_MAX_MS,
  STORE_LOCK_WAIT_MAX_MS,
} from '../tunables.js';

export function pgConnectionConfig(url: string): pg.ClientConfig {
  return {
    connectionString: url,
    connectionTimeoutMillis: PG_CONNECT_TIMEOUT_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: PG_KEEPALIVE_IDLE_MS,
  };
}

/**
 * The session's own bounds, as one round trip. `SET`, not `SET LOCAL`: they
 * hold for the connection's life (a session-mode pooler keeps them until
 * this client disconnects). Whoever changes one for a while sets it back to
 * this value, not with `RESET`, which would go back to the server's default
 * (no bound at all).
 */
export const PG_SESSION_BOUNDS_SQL =
  `SET lock_timeout = ${STORE_LOCK_WAIT_MAX_MS}; ` +
  `SET idle_in_transaction_session_timeout = ${PG_IDLE_IN_TRANSACTION_MAX_MS}`;

/** The value `lock_timeout` has on every connection outside the moments someone changes it. */
export const PG_SESSION_LOCK_TIMEOUT_MS = STORE_LOCK_WAIT_MAX_MS;

/** Sets the session's bounds on a connection just opened, before anything else runs on it. */
export async function boundSession(client: pg.ClientBase): Promise<void> {
  // Bounded as the handshake is: it is the rest of opening the connection. `pg` reads
  // `query_timeout` per query; its types leave it out.
  const bounds = { text: PG_SESSION_BOUNDS_SQL, query_timeout: PG_CONNECT_TIMEOUT_MS };
  await client.query(bounds as pg.QueryConfig);
}

/**
 * A connection of its own, outside the pool: its statements carry the reply
 * bound the pool's do (the target's, which tests shorten).
 */
export function pgDedicatedConnectionConfig(
  url: string,
  replyMaxMs: number = PG_STATEMENT_REPLY_MAX_MS,
): pg.ClientConfig {
  return { ...pgConnectionConfig(url), query_timeout: replyMaxMs };
}
