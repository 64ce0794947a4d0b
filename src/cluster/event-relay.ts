/**
 * Events across replicas (issue 16): every session event a replica publishes
 * is also kept in the store's event log, and every other replica's relay
 * publishes it to its own subscribers, so a browser on B sees A's sessions
 * live with A's revisions.
 *
 * Owns: the log's writer for the session write unit (in the write's
 * transaction, with its wake), the logging publisher for events no write
 * carries (the registry's), and the relay: on a session wake or a poll it
 * reads the log past its cursor, skips its own replica's rows, and publishes
 * the rest into the local hub, in order, without logging them again. A
 * transaction still running holds back only its own rows: their wake comes
 * with its commit, and the poll covers a lost one. A prune keeps the log to
 * `EVENT_LOG_RETENTION_MS`.
 *
 * Invariants: the store stays the truth, the log only carries what was
 * committed; one drain runs at a time, so events leave in log order; the
 * cursor is the store's (`readEventLog`), never looked into here.
 */
import { EVENT_LOG_PRUNE_INTERVAL_MS, EVENT_LOG_RETENTION_MS } from '../tunables.js';
import type { ClarionEvent, EventPublisher, SessionEventLog } from '../events/index.js';
import type { Logger } from '../observability/index.js';
import {
  appendSessionEvents,
  eventLogStart,
  pruneEventLog,
  readEventLog,
  type EventLogCursor,
  type Store,
} from '../store/index.js';
import { formatTimestamp, type RepeatingTimers } from '../support/index.js';
import { encodeWake, type WakeBus } from './wake-bus.js';

/** Rows one read of the log takes; a drain reads on until a page comes back short. */
const EVENT_LOG_PAGE_ROWS = 500;
const NS_PER_MS = 1_000_000n;

/** The session write unit's log: the staged events and the session's wake, in its transaction. */
export function sessionEventLog(bus: WakeBus): SessionEventLog {
  return (tx, sessionId, events) =>
    appendSessionEvents(
      tx,
      bus.replicaId,
      events,
      encodeWake(bus.replicaId, { kind: 'session', sessionId }),
    );
}

/**
 * For events published outside a session write: published here at once, and
 * logged behind it, one append at a time so the log keeps their order.
 */
export function loggingPublisher(
  store: Store,
  bus: WakeBus,
  local: EventPublisher,
  logger: Logger,
): EventPublisher {
  let chain = Promise.resolve();
  return {
    publish(event) {
      local.publish(event);
      const wake = encodeWake(bus.replicaId, { kind: 'session', sessionId: event.session_id });
      chain = chain.then(async () => {
        try {
          await appendSessionEvents(store, bus.replicaId, [event], wake);
        } catch (error) {
          // Other replicas' subscribers miss this event; their next snapshot has the state.
          logger.warn(
            { err: error, session_id: event.session_id, event_type: event.type },
            'an event could not be logged for other replicas',
          );
        }
      });
    },
  };
}

export interface EventRelayOptions {
  readonly store: Store;
  readonly bus: WakeBus;
  /** The local hub: relayed events go only here, never back into the log. */
  readonly hub: EventPublisher;
  readonly timers: RepeatingTimers;
  readonly logger: Logger;
  readonly retentionMs?: number;
  readonly pruneIntervalMs?: number;
}

export interface EventRelay {
  /** Reads the log now (the wake bus does this on every wake and poll); resolves when caught up. */
  drain(): Promise<void>;
  stop(): Promise<void>;
}

export async function startEventRelay(options: EventRelayOptions): Promise<EventRelay> {
  const { store, bus, hub, logger } = options;
  let cursor: EventLogCursor = await eventLogStart(store);
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  // Calls, so each read sees what a wake or `stop` set during an await.
  const wokenAgain = () => again;
  const isStopped = () => stopped;

  async function readAll(): Promise<void> {
    for (;;) {
      const page = await readEventLog(store, cursor, bus.replicaId, EVENT_LOG_PAGE_ROWS);
      for (const logged of page.events) {
        if (stopped) return;
        hub.publish(logged.event as ClarionEvent);
      }
      cursor = page.cursor;
      if (!page.more) return;
    }
  }

  function drain(): Promise<void> {
    if (stopped) return Promise.resolve();
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      try {
        do {
          again = false;
          await readAll();
        } while (wokenAgain() && !isStopped());
      } finally {
        running = undefined;
      }
    })();
    return running;
  }

  function drainInBackground(): void {
    drain().catch((error: unknown) => {
      logger.warn({ err: error }, 'reading the event log failed; the next poll retries');
    });
  }

  const unsubscribe = bus.subscribe({
    kinds: ['session'],
    wake(wake) {
      if (wake.origin === bus.replicaId) return;
      drainInBackground();
    },
    resync: drain,
  });
  const retentionMs = options.retentionMs ?? EVENT_LOG_RETENTION_MS;
  const prune = options.timers.every(options.pruneIntervalMs ?? EVENT_LOG_PRUNE_INTERVAL_MS, () => {
    const before = formatTimestamp(BigInt(store.clock.nowMs() - retentionMs) * NS_PER_MS);
    pruneEventLog(store, before).catch((error: unknown) => {
      logger.warn({ err: error }, 'pruning the event log failed; the next prune retries');
    });
  });

  return {
    drain,
    async stop() {
      stopped = true;
      unsubscribe();
      prune.cancel();
      await running?.catch(() => undefined);
    },
  };
}
