/**
 * The wake bus: "look at this" between replicas on one database. A topic is
 * sent with the commit of the write it is about (the store's `wakes`, on
 * PostgreSQL `pg_notify` in that transaction), and every replica's
 * subscribers of its kind hear it, this one's included.
 *
 * Invariants: a wake carries ids, never data; the store stays the only truth.
 * A notification may be lost (the listener connection died), so each
 * subscriber's `resync` runs every `WAKE_POLL_INTERVAL_MS` and after every
 * listener (re)connect: a lost wake delays, never loses.
 */
import { WAKE_POLL_INTERVAL_MS } from '../tunables.js';
import type { Logger } from '../observability/index.js';
import type { ListenerState, RepoContext, Store } from '../store/index.js';
import type { RepeatingTimers } from '../support/index.js';

/** What changed, by id. A small closed set: add a kind when an owner needs one. */
export type WakeTopic =
  | { readonly kind: 'session'; readonly sessionId: string }
  | { readonly kind: 'queue'; readonly sessionId: string }
  | { readonly kind: 'cancel'; readonly sessionId: string }
  /** The session was deleted elsewhere: its agent's holder stops it. */
  | { readonly kind: 'stop'; readonly sessionId: string }
  | { readonly kind: 'registry'; readonly requestId: string }
  /** A claim of the bundle waits for the replica that delivers it. */
  | { readonly kind: 'delivery'; readonly pendingId: string }
  /** An MCP session's client closed it through the sender: every copy of it closes. */
  | { readonly kind: 'mcp_close'; readonly mcpSessionId: string }
  /** A person's memberships changed: event subscribers ask again who may see what. */
  | { readonly kind: 'access'; readonly userId: string }
  /** A person's "Always allow" rules changed: their open pages (and admins') read them again. */
  | { readonly kind: 'rules'; readonly userId: string }
  /** A person's notification channels or settings changed: their open Settings read again. */
  | { readonly kind: 'notifications'; readonly userId: string }
  /** A person's API tokens changed: their open Settings read them again. */
  | { readonly kind: 'tokens'; readonly userId: string }
  /** Users, workspaces or memberships changed (`subjectId`, one of them): admins' pages read again. */
  | { readonly kind: 'people'; readonly subjectId: string }
  /** The members of a workspace of this person's changed: their People pages read again. */
  | { readonly kind: 'members'; readonly userId: string }
  /** A person's token was revoked, or the person removed: running MCP calls read their tokens. */
  | { readonly kind: 'credentials'; readonly userId: string }
  /** A replica's clean stop gave its leases back: the others run the queues no live replica holds. */
  | { readonly kind: 'released'; readonly replicaId: string };

export type WakeKind = WakeTopic['kind'];

export interface Wake {
  readonly topic: WakeTopic;
  /** The replica whose commit sent it. */
  readonly origin: string;
}

export interface WakeSubscriber {
  readonly kinds: readonly WakeKind[];
  /** Must return at once; the work it starts reads the store. */
  wake(wake: Wake): void;
  /** Looks at the store for whatever a lost wake would have said. */
  resync(): void | Promise<void>;
}

export interface WakeBus {
  readonly replicaId: string;
  /** Sends `topic` with the commit of `ctx` (at once outside a transaction). */
  send(ctx: RepoContext, topic: WakeTopic): Promise<void>;
  subscribe(subscriber: WakeSubscriber): () => void;
  /** For `/healthz`: `listening`, `reconnecting`, or `local` on SQLite. */
  listenerState(): ListenerState;
  close(): void;
}

export interface WakeBusOptions {
  readonly store: Store;
  readonly replicaId: string;
  readonly timers: RepeatingTimers;
  readonly logger: Logger;
  readonly pollIntervalMs?: number;
}

const KINDS: ReadonlySet<string> = new Set<WakeKind>([
  'session',
  'queue',
  'cancel',
  'stop',
  'registry',
  'delivery',
  'mcp_close',
  'access',
  'rules',
  'notifications',
  'tokens',
  'people',
  'members',
  'credentials',
  'released',
]);

function topicId(topic: WakeTopic): string {
  switch (topic.kind) {
    case 'registry':
      return topic.requestId;
    case 'delivery':
      return topic.pendingId;
    case 'mcp_close':
      return topic.mcpSessionId;
    case 'access':
    case 'rules':
    case 'notifications':
    case 'tokens':
    case 'members':
    case 'credentials':
      return topic.userId;
    case 'people':
      return topic.subjectId;
    case 'released':
      return topic.replicaId;
    default:
      return topic.sessionId;
  }
}

/** `<origin> <kind> <id>`: ids are never blank and hold no spaces. */
export function encodeWake(origin: string, topic: WakeTopic): string {
  return `${origin} ${topic.kind} ${topicId(topic)}`;
}

function topicOf(kind: string, id: string): WakeTopic {
  switch (kind) {
    case 'registry':
      return { kind, requestId: id };
    case 'delivery':
      return { kind, pendingId: id };
    case 'mcp_close':
      return { kind, mcpSessionId: id };
    case 'access':
    case 'rules':
    case 'notifications':
    case 'tokens':
    case 'members':
    case 'credentials':
      return { kind, userId: id };
    case 'people':
      return { kind, subjectId: id };
    case 'released':
      return { kind, replicaId: id };
    default:
      return { kind: kind as 'session' | 'queue' | 'cancel' | 'stop', sessionId: id };
  }
}

/** The wake a payload says, or `undefined` for one this version does not know. */
export function parseWake(payload: string): Wake | undefined {
  const [origin, kind, id, ...rest] = payload.split(' ');
  if (!origin || !kind || !id || rest.length > 0 || !KINDS.has(kind)) return undefined;
  return { topic: topicOf(kind, id), origin };
}

export function createWakeBus(options: WakeBusOptions): WakeBus {
  const { store, replicaId, logger } = options;
  const subscribers = new Set<WakeSubscriber>();

  function resync(subscriber: WakeSubscriber): void {
    try {
      void Promise.resolve(subscriber.resync()).catch((error: unknown) => {
        logger.warn({ err: error }, 'a wake subscriber could not resync; the next poll retries');
      });
    } catch (error) {
      logger.warn({ err: error }, 'a wake subscriber could not resync; the next poll retries');
    }
  }

  const resyncAll = () => {
    for (const subscriber of [...subscribers]) resync(subscriber);
  };

  const unlisten = store.wakes.listen({
    wake(payload) {
      const wake = parseWake(payload);
      if (!wake) {
        logger.warn({ payload }, 'a wake this version does not know was ignored');
        return;
      }
      for (const subscriber of [...subscribers]) {
        if (!subscriber.kinds.includes(wake.topic.kind)) continue;
        try {
          subscriber.wake(wake);
        } catch (error) {
          logger.error({ err: error, topic: wake.topic }, 'a wake subscriber failed');
        }
      }
    },
    reconnected: resyncAll,
  });
  const poll = options.timers.every(options.pollIntervalMs ?? WAKE_POLL_INTERVAL_MS, resyncAll);

  return {
    replicaId,
    send: (ctx, topic) => store.wakes.send(ctx, encodeWake(replicaId, topic)),
    subscribe(subscriber) {
      subscribers.add(subscriber);
      return () => {
        subscribers.delete(subscriber);
      };
    },
    listenerState: () => store.wakes.state(),
    close() {
      poll.cancel();
      unlisten();
      subscribers.clear();
    },
  };
}
