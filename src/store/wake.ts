/**
 * Wake-ups between servers on one database (issue 16): a short payload sent
 * with a transaction's commit, and one dedicated listener connection per
 * server that hears every server's sends.
 *
 * On PostgreSQL a send is `pg_notify` in the committing transaction, so a
 * rollback sends nothing and nothing arrives before the commit; the listener
 * is its own `pg.Client` (never one of the pool's, which LISTEN would pin),
 * reconnecting with bounded backoff when it dies. SQLite has one server, so a
 * send is an in-process emit after the commit.
 *
 * Invariants: a payload only says "look" (ids, never data; the store stays the
 * truth); a lost notification is the wake bus's poll to cover, so the
 * listener tells its handlers whenever it (re)connects.
 */
import { WAKE_LISTENER_RETRY_MAX_MS, WAKE_LISTENER_RETRY_MIN_MS } from '../tunables.js';
import { sql } from 'kysely';
import pg from 'pg';
import { systemTimers } from '../support/index.js';
import type { RepoContext } from './context.js';
import { boundSession, pgDedicatedConnectionConfig } from './pg-connection.js';

/** The one channel Clarion's servers notify and listen on. */
export const WAKE_CHANNEL = 'clarion_wake';
/** How the listener shows in `pg_stat_activity` (operators, and tests that kill it). */
export const WAKE_LISTENER_APPLICATION = 'clarion-wake-listener';

/** `local`: SQLite, one server, no connection to keep. */
export type ListenerState = 'listening' | 'reconnecting' | 'local';

export interface WakeHandlers {
  wake(payload: string): void;
  /** The listener (re)connected: anything sent while it was down was lost. */
  reconnected(): void;
}

export interface WakeChannel {
  /**
   * Sends `payload` with the commit of `ctx` when it is a transaction, at
   * once when it is the store itself; a rollback sends nothing.
   */
  send(ctx: RepoContext, payload: string): Promise<void>;
  /** Starts the listener on first use. Returns the unsubscribe. */
  listen(handlers: WakeHandlers): () => void;
  state(): ListenerState;
  close(): Promise<void>;
}

/** What the store's transaction tells the channel (SQLite emits only after the commit). */
export interface WakeTransactionHooks {
  /** A transaction runs as `ctx`: its sends wait for `committed`. */
  begun(ctx: RepoContext): void;
  committed(ctx: RepoContext): void;
}

export interface ListenerEvents {
  /** The listener connection died or could not connect; it retries after `retryMs`. */
  onListenerDown?: (error: unknown, retryMs: number) => void;
}

class Handlers {
  private readonly all = new Set<WakeHandlers>();
  add(handlers: WakeHandlers, onFirst: () => void): () => void {
    this.all.add(handlers);
    if (this.all.size === 1) onFirst();
    return () => {
      this.all.delete(handlers);
    };
  }
  wake(payload: string): void {
    for (const handlers of [...this.all]) handlers.wake(payload);
  }
  reconnected(): void {
    for (const handlers of [...this.all]) handlers.reconnected();
  }
}

/** SQLite: sends wait in memory for their transaction's commit, then reach this process's handlers. */
export function localWakeChannel(): WakeChannel & WakeTransactionHooks {
  const handlers = new Handlers();
  const pending = new WeakMap<RepoContext, string[]>();
  const emit = (payloads: readonly string[]) => {
    // After the caller's own continuation, as a notification would arrive.
    queueMicrotask(() => {
      for (const payload of payloads) handlers.wake(payload);
    });
  };
  return {
    send(ctx, payload) {
      const waiting = pending.get(ctx);
      if (waiting) waiting.push(payload);
      else emit([payload]);
      return Promise.resolve();
    },
    listen: (wakeHandlers) => handlers.add(wakeHandlers, () => undefined),
    state: () => 'local',
    close: () => Promise.resolve(),
    begun(ctx) {
      pending.set(ctx, []);
    },
    committed(ctx) {
      const waiting = pending.get(ctx);
      if (waiting && waiting.length > 0) emit(waiting);
      pending.delete(ctx);
    },
  };
}

/** PostgreSQL: `pg_notify` in the caller's transaction; one listener client, reconnecting. */
export function postgresWakeChannel(
  url: string,
  events: ListenerEvents = {},
  replyMaxMs?: number,
): WakeChannel & WakeTransactionHooks {
  const handlers = new Handlers();
  let state: 'listening' | 'reconnecting' = 'reconnecting';
  let closed = false;
  // A call, so each read sees what `close` set meanwhile (the compiler narrows a bare variable).
  const isClosed = () => closed;
  let client: pg.Client | undefined;
  let sleeping: { wake: () => void } | undefined;
  let running: Promise<void> | undefined;

  function sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = systemTimers.setTimeout(resolve, ms);
      sleeping = {
        wake: () => {
          timer.cancel();
          resolve();
        },
      };
    });
  }

  async function listenOnce(): Promise<void> {
    const connection = new pg.Client({
      ...pgDedicatedConnectionConfig(url, replyMaxMs),
      application_name: WAKE_LISTENER_APPLICATION,
    });
    let failure: Error | undefined;
    const ended = new Promise<void>((resolve) => {
      connection.on('error', (error: Error) => {
        failure ??= error;
        resolve();
      });
      connection.on('end', () => {
        resolve();
      });
    });
    connection.on('notification', (message) => {
      if (message.channel === WAKE_CHANNEL && message.payload !== undefined) {
        handlers.wake(message.payload);
      }
    });
    try {
      await connection.connect();
      await boundSession(connection);
      await connection.query(`LISTEN ${WAKE_CHANNEL}`);
    } catch (error) {
      void connection.end().catch(() => undefined);
      throw error;
    }
    if (isClosed()) {
      await connection.end().catch(() => undefined);
      return;
    }
    client = connection;
    state = 'listening';
    handlers.reconnected();
    await ended;
    client = undefined;
    void connection.end().catch(() => undefined);
    if (!isClosed()) throw failure ?? new Error('the wake listener connection ended');
  }

  async function run(): Promise<void> {
    let retryMs = WAKE_LISTENER_RETRY_MIN_MS;
    while (!isClosed()) {
      try {
        await listenOnce();
      } catch (error) {
        if (isClosed()) break;
        // A connection that came up restarts the backoff; failures in a row grow it.
        if (state === 'listening') retryMs = WAKE_LISTENER_RETRY_MIN_MS;
        state = 'reconnecting';
        events.onListenerDown?.(error, retryMs);
        await sleep(retryMs);
        retryMs = Math.min(retryMs * 2, WAKE_LISTENER_RETRY_MAX_MS);
      }
    }
  }

  return {
    async send(ctx, payload) {
      await sql`SELECT pg_notify(${WAKE_CHANNEL}, ${payload})`.execute(ctx.db);
    },
    listen: (wakeHandlers) =>
      handlers.add(wakeHandlers, () => {
        running ??= run();
      }),
    state: () => state,
    async close() {
      closed = true;
      sleeping?.wake();
      await client?.end().catch(() => undefined);
      await running;
    },
    // The engine sends with the commit and drops with a rollback.
    begun: () => undefined,
    committed: () => undefined,
  };
}
