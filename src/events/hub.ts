/**
 * The event hub: the `EventPublisher` services call after their transaction
 * commits, fanning each event out to the WebSocket subscribers allowed to see
 * it. It holds no state a client needs after a reconnect; the store does.
 *
 * Invariants: `publish` never throws and never waits (lookups run behind it,
 * per subscriber and session, in order); a subscriber that cannot keep up is
 * disconnected with 1013 instead of buffering without bound.
 */
import { EVENTS_VISIBILITY_TTL_MS } from '../tunables.js';
import type { Principal } from '../auth/index.js';
import type { Logger } from '../observability/index.js';
import type { ClarionMetrics } from '../observability/index.js';
import type { Clock } from '../support/index.js';
import {
  CLOSE_GOING_AWAY,
  Connection,
  type CorkableStream,
  type EventSocket,
  type SessionVisibility,
  type WorkspaceStanding,
  type WorkspaceVisibility,
} from './connection.js';
import type { ServerFrame } from './protocol.js';
import type { ClarionEvent, EventPublisher } from './types.js';

/** Past this many unsent bytes a subscriber is too slow and is disconnected. */
export const DEFAULT_MAX_BUFFERED_BYTES = 1024 * 1024;
/** Events one subscriber may have waiting on visibility lookups (a stalled database) before 1013. */
export const DEFAULT_MAX_WAITING_EVENTS = 10_000;
/** How long a visibility answer is trusted; a revoked membership takes effect within it. */
export { EVENTS_VISIBILITY_TTL_MS as DEFAULT_VISIBILITY_TTL_MS };
/** Sessions remembered per connection; an "all" subscriber on a busy server stays bounded. */
export const DEFAULT_MAX_CACHED_SESSIONS = 10_000;

export type HubMetrics = Pick<
  ClarionMetrics,
  'eventPublished' | 'subscribersChanged' | 'slowConsumerClosed'
>;

export interface EventHubOptions {
  readonly canSeeSession: SessionVisibility;
  /** Who hears of a deleted session (`session.deleted`, `task.deleted`): its workspace's members. */
  readonly canSeeWorkspace: WorkspaceVisibility;
  /** Whether a person whose memberships changed is still in a workspace (in none: 4403). */
  readonly standing: WorkspaceStanding;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics?: HubMetrics;
  readonly maxBufferedBytes?: number;
  readonly maxWaitingEvents?: number;
  readonly visibilityTtlMs?: number;
  readonly maxCachedSessions?: number;
}

/** What the WebSocket route holds for one open socket. */
export interface EventSubscription {
  /** Handles one client frame; replies go to the socket. Never rejects. */
  receive(data: unknown): Promise<void>;
  /** The socket closed; stop delivering. Idempotent. */
  disconnect(): void;
}

export interface EventHub extends EventPublisher {
  /** `stream`, the bytes under `socket`, lets one tick's frames leave in one write. */
  connect(socket: EventSocket, principal: Principal, stream?: CorkableStream): EventSubscription;
  readonly subscriberCount: number;
  /**
   * A person's memberships changed: their subscribers ask again who may see
   * each session, from the next event on, instead of after the cache's TTL;
   * explicit subscriptions they lost end now with an `access_changed` frame
   * (every subscriber of theirs gets one), and a person left in no
   * workspace is closed with 4403.
   */
  accessChanged(userId: string): void;
  /**
   * `userId`'s "Always allow" rules changed (committed): their subscribers
   * and every admin's (an admin lists everyone's rules) hear
   * `consent_rules_changed`; nobody else does.
   */
  consentRulesChanged(userId: string): void;
  /** `userId`'s notification channels or settings changed (committed): their subscribers hear it. */
  notificationsChanged(userId: string): void;
  /** `userId`'s API tokens changed (committed): their subscribers hear `tokens_changed`. */
  tokensChanged(userId: string): void;
  /**
   * Users, workspaces or memberships changed (committed): `people_changed`
   * to admins' subscribers when `audience.admins`, and to those of
   * `audience.userIds` (the members of a workspace whose members changed).
   */
  peopleChanged(audience: PeopleAudience): void;
  /** Closes every subscriber with 1001 (server shutting down). */
  closeAll(): void;
  /**
   * Calls `observer` after every publication, in-process (notifications
   * reconcile on it). It must return at once; one that throws is logged and
   * the event still reaches everyone. Returns the unsubscribe.
   */
  observe(observer: (event: ClarionEvent) => void): () => void;
}

/** Who hears `people_changed`. */
export interface PeopleAudience {
  readonly admins: boolean;
  readonly userIds: readonly string[];
}

export function createEventHub(options: EventHubOptions): EventHub {
  const { logger, metrics } = options;
  const connections = new Set<Connection>();
  const observers = new Set<(event: ClarionEvent) => void>();
  const settings = {
    canSeeSession: options.canSeeSession,
    canSeeWorkspace: options.canSeeWorkspace,
    standing: options.standing,
    clock: options.clock,
    logger,
    maxBufferedBytes: options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES,
    maxWaitingEvents: options.maxWaitingEvents ?? DEFAULT_MAX_WAITING_EVENTS,
    visibilityTtlMs: options.visibilityTtlMs ?? EVENTS_VISIBILITY_TTL_MS,
    maxCachedSessions: options.maxCachedSessions ?? DEFAULT_MAX_CACHED_SESSIONS,
    onClosed(connection: Connection, reason: 'disconnected' | 'slow' | 'failed') {
      connections.delete(connection);
      if (reason === 'slow') metrics?.slowConsumerClosed();
      metrics?.subscribersChanged(connections.size);
    },
  };

  /** A frame for `userId`'s own sockets: what is theirs alone (channels, tokens). */
  const tellPerson = (userId: string, frame: ServerFrame) => {
    for (const connection of connections) {
      const { principal } = connection;
      if (principal.kind === 'user' && principal.userId === userId) connection.tell(frame);
    }
  };

  return {
    publish(event) {
      try {
        metrics?.eventPublished();
        for (const observer of observers) {
          try {
            observer(event);
          } catch (error) {
            logger.error({ err: error, session_id: event.session_id }, 'events.observer_failed');
          }
        }
        if (connections.size === 0) return;
        // Serialized once for every subscriber; a failure here drops this event for all alike.
        const frame = JSON.stringify({ type: 'event', event });
        for (const connection of connections) {
          try {
            connection.offer(event, frame);
          } catch (error) {
            logger.error({ err: error, session_id: event.session_id }, 'events.offer_failed');
          }
        }
      } catch (error) {
        logger.error(
          { err: error, session_id: event.session_id, event_type: event.type },
          'events.publish_failed',
        );
      }
    },
    connect(socket, principal, stream) {
      const connection = new Connection(socket, principal, settings, stream);
      connections.add(connection);
      metrics?.subscribersChanged(connections.size);
      return connection;
    },
    observe(observer) {
      observers.add(observer);
      return () => {
        observers.delete(observer);
      };
    },
    accessChanged(userId) {
      for (const connection of connections) {
        // An agent sees its own session whatever the memberships say.
        const { principal } = connection;
        if (principal.kind === 'user' && principal.userId === userId) {
          connection.accessChanged();
        }
      }
    },
    consentRulesChanged(userId) {
      const frame = { type: 'consent_rules_changed' } as const;
      for (const connection of connections) {
        const { principal } = connection;
        if (principal.kind === 'user' && (principal.userId === userId || principal.isAdmin)) {
          connection.tell(frame);
        }
      }
    },
    notificationsChanged(userId) {
      tellPerson(userId, { type: 'notifications_changed' });
    },
    tokensChanged(userId) {
      tellPerson(userId, { type: 'tokens_changed' });
    },
    peopleChanged({ admins, userIds }) {
      const frame = { type: 'people_changed' } as const;
      const named = new Set(userIds);
      for (const connection of connections) {
        const { principal } = connection;
        if (principal.kind !== 'user') continue;
        if ((admins && principal.isAdmin) || named.has(principal.userId)) connection.tell(frame);
      }
    },
    get subscriberCount() {
      return connections.size;
    },
    closeAll() {
      for (const connection of [...connections]) {
        connection.close(CLOSE_GOING_AWAY, 'server shutting down');
      }
    },
  };
}
