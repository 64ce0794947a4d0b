/**
 * What every connection Clarion opens to PostgreSQL carries, so that none of
 * them waits without a bound:
 *
 * - the connect handshake gives up after `PG_CONNECT_TIMEOUT_MS`;
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
    lock_timeout: STORE_LOCK_WAIT_MAX_MS,
    idle_in_transaction_session_timeout: PG_IDLE_IN_TRANSACTION_MAX_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: PG_KEEPALIVE_IDLE_MS,
  };
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
