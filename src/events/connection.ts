/**
 * One subscriber: a socket, the principal behind it, what it asked for, and
 * the per-session delivery queues that keep events in publication order.
 *
 * Invariants:
 * - Per session, events reach the socket in the order `offer` saw them, even
 *   while a visibility lookup is in flight: a session with queued work keeps
 *   queueing behind it instead of taking the synchronous fast path.
 * - A session the principal cannot see is refused exactly like an unknown one.
 * - An agent principal sees only its own session, whatever the lookup says.
 * - A subscription never ends silently: when the person's memberships change,
 *   each explicitly subscribed session is looked up again at once, and those
 *   they can no longer see end with an `access_changed` frame (a session
 *   found unseen at an event is not ended there: a deleted one looks the
 *   same, and its deletion event is still to come). A person left in no
 *   workspace is closed with 4403.
 * - Client frames are handled one at a time, so acknowledgements keep order,
 *   and an acknowledgement is sent before any event it enables.
 * - Nothing here throws into the hub or the socket's event handlers.
 */
import type { Principal } from '../auth/index.js';
import type { Logger } from '../observability/index.js';
import type { Clock } from '../support/index.js';
import { EVENTS_CORKED_BYTES_MAX } from '../tunables.js';
import { EVENTS_CLOSE_NO_WORKSPACE } from '../wire/index.js';
import { parseClientFrame, uniqueIds, type ClientFrame, type ServerFrame } from './protocol.js';
import type { ClarionEvent } from './types.js';
import { VisibilityCache } from './visibility-cache.js';

/** The part of a WebSocket the hub uses; a `ws` WebSocket satisfies it as is. */
export interface EventSocket {
  readonly readyState: number;
  readonly bufferedAmount: number;
  send(data: string): void;
  close(code: number, reason: string): void;
}

/**
 * The byte stream under a socket. Frames sent between `cork` and `uncork`
 * leave in one write: a respond publishes two events in the same tick, and
 * writing them together halves the system calls per subscriber.
 */
export interface CorkableStream {
  cork(): void;
  uncork(): void;
}

/** Whether `principal` may see `sessionId`; false for unknown sessions too. */
export type SessionVisibility = (principal: Principal, sessionId: string) => Promise<boolean>;

/**
 * Whether `principal` (a person) belongs to `workspaceId`: who hears of a
 * deleted session, which the store can no longer place.
 */
export type WorkspaceVisibility = (principal: Principal, workspaceId: string) => Promise<boolean>;

/**
 * Where a person stands after their memberships changed: in some workspace,
 * in none, or deleted (whose credential watch closes the socket as revoked).
 */
export type WorkspaceStanding = (
  principal: Principal,
) => Promise<'member' | 'no_workspace' | 'gone'>;

type DeletionEvent = Extract<ClarionEvent, { workspace_id: string }>;

function isDeletion(event: ClarionEvent): event is DeletionEvent {
  return event.type === 'session.deleted' || event.type === 'task.deleted';
}

export const SOCKET_OPEN = 1;
/** "Try again later": the subscriber fell too far behind (RFC 6455 §7.4.1). */
export const CLOSE_SLOW_CONSUMER = 1013;
export const CLOSE_INTERNAL_ERROR = 1011;
export const CLOSE_GOING_AWAY = 1001;

/** Client frames queued for handling; past this a frame is answered with an error, not queued. */
export const MAX_CLIENT_FRAMES_IN_FLIGHT = 16;
/** Visibility lookups per explicit subscribe run this many at a time, to spare the pool. */
const SUBSCRIBE_LOOKUP_CONCURRENCY = 8;

export interface ConnectionSettings {
  readonly canSeeSession: SessionVisibility;
  readonly canSeeWorkspace: WorkspaceVisibility;
  readonly standing: WorkspaceStanding;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly maxBufferedBytes: number;
  /** Events waiting on visibility lookups before the subscriber counts as too slow. */
  readonly maxWaitingEvents: number;
  readonly visibilityTtlMs: number;
  readonly maxCachedSessions: number;
  /** Called once when the connection ends for any reason. */
  readonly onClosed: (connection: Connection, reason: 'disconnected' | 'slow' | 'failed') => void;
}

export class Connection {
  private readonly sessions = new Set<string>();
  private all = false;
  private closed = false;
  private readonly queues = new Map<string, Promise<void>>();
  private inbound: Promise<void> = Promise.resolve();
  private framesInFlight = 0;
  /** Events queued behind visibility lookups, across all sessions of this connection. */
  private waitingEvents = 0;
  private readonly visibility: VisibilityCache;
  /** Frames of the current tick wait in the stream until `uncork`; see `hold`. */
  private corked = false;
  private readonly corkedBytesMax: number;

  constructor(
    private readonly socket: EventSocket,
    readonly principal: Principal,
    private readonly settings: ConnectionSettings,
    private readonly stream?: CorkableStream,
  ) {
    this.visibility = new VisibilityCache({
      check: (sessionId) => this.check(sessionId),
      clock: settings.clock,
      ttlMs: settings.visibilityTtlMs,
      maxEntries: settings.maxCachedSessions,
    });
    // Corked bytes count as buffered; half the slow-consumer bound keeps a burst from tripping it.
    this.corkedBytesMax = Math.min(EVENTS_CORKED_BYTES_MAX, settings.maxBufferedBytes / 2);
  }

  /** Handles one client frame after every earlier one. Never rejects. */
  receive(data: unknown): Promise<void> {
    if (this.framesInFlight >= MAX_CLIENT_FRAMES_IN_FLIGHT) {
      this.sendFrame({
        type: 'error',
        code: 'invalid_request',
        error: `more than ${MAX_CLIENT_FRAMES_IN_FLIGHT} frames awaiting an answer; wait for replies`,
      });
      return this.inbound;
    }
    this.framesInFlight += 1;
    this.inbound = this.inbound.then(async () => {
      try {
        await this.handle(data);
      } catch (error) {
        // handle() answers every expected failure itself; anything here is a bug, and the socket goes.
        this.settings.logger.error({ err: error }, 'events.frame_failed');
        this.fail();
      } finally {
        this.framesInFlight -= 1;
      }
    });
    return this.inbound;
  }

  /**
   * Who may see what changed for this connection's person: ask again from
   * the next event on, and end now the explicit subscriptions they lost
   * (after every client frame already received, so replies keep order).
   */
  accessChanged(): void {
    this.visibility.clear();
    this.inbound = this.inbound.then(async () => {
      try {
        await this.reviewAccess();
      } catch (error) {
        this.settings.logger.error({ err: error }, 'events.access_review_failed');
        this.fail();
      }
    });
  }

  /**
   * A frame about the person rather than a session (`consent_rules_changed`,
   * `notifications_changed`, `people_changed`): after every client frame already received, so it
   * never overtakes the acknowledgement of a subscription.
   */
  tell(frame: ServerFrame): void {
    this.inbound = this.inbound.then(() => {
      this.sendFrame(frame);
    });
  }

  /** The socket is gone; stop delivering. Idempotent. */
  disconnect(): void {
    this.end('disconnected');
  }

  /** Closes the socket from the server side (shutdown). */
  close(code: number, reason: string): void {
    this.closeSocket(code, reason);
    this.end('disconnected');
  }

  /** Considers one published event; `frame` is its serialized `event` frame. */
  offer(event: ClarionEvent, frame: string): void {
    const sessionId = event.session_id;
    if (this.closed || !this.wants(sessionId)) return;
    const queued = this.queues.get(sessionId);
    // A deleted session is judged by its workspace, after what was queued before it.
    const deletion = isDeletion(event) ? event : undefined;
    const known = deletion ? undefined : this.visibility.peek(sessionId);
    if (queued === undefined && known !== undefined) {
      if (known) this.send(frame);
      return;
    }
    if (this.waitingEvents >= this.settings.maxWaitingEvents) {
      // Lookups are not keeping up (a stalled database); holding more would grow without bound.
      this.closeSlow('events.lookup_backlog_closed');
      return;
    }
    this.waitingEvents += 1;
    const next = (queued ?? Promise.resolve())
      .then(() => (deletion ? this.checkDeleted(deletion) : this.visibility.lookup(sessionId)))
      .then(
        (visible) => {
          // Re-check the filter: an unsubscribe may have arrived while waiting.
          if (visible && this.wants(sessionId)) this.send(frame);
        },
        (error: unknown) => {
          this.settings.logger.warn(
            { err: error, session_id: sessionId, event_type: event.type },
            'events.visibility_failed',
          );
          // An event nobody could judge is one this subscriber would silently never
          // see (a question, say): it reconnects and refetches rather than drift.
          this.closeSocket(
            CLOSE_SLOW_CONSUMER,
            'an event could not be checked; reconnect and refetch',
          );
          this.end('failed');
        },
      );
    this.queues.set(sessionId, next);
    void next.then(() => {
      this.waitingEvents -= 1;
      if (this.queues.get(sessionId) === next) this.queues.delete(sessionId);
    });
  }

  private wants(sessionId: string): boolean {
    return this.all || this.sessions.has(sessionId);
  }

  private async handle(data: unknown): Promise<void> {
    if (this.closed) return;
    const parsed = parseClientFrame(data);
    if (!parsed.ok) {
      this.sendFrame({
        type: 'error',
        code: parsed.code ?? 'invalid_request',
        error: parsed.error,
      });
      return;
    }
    await this.apply(parsed.frame);
  }

  private async apply(frame: ClientFrame): Promise<void> {
    if (frame.type === 'ping') {
      this.sendFrame({ type: 'pong' });
      return;
    }
    if (frame.type === 'subscribe') {
      if ('all' in frame) {
        this.all = true;
        this.sendFrame({ type: 'subscribed', sessions: [], all: true, refused: [] });
        return;
      }
      const { granted, refused } = await this.checkExplicit(uniqueIds(frame.sessions));
      if (this.closed) return;
      for (const sessionId of granted) this.sessions.add(sessionId);
      this.sendFrame({ type: 'subscribed', sessions: granted, all: this.all, refused });
      return;
    }
    if ('all' in frame) {
      this.all = false;
      this.sendFrame({ type: 'unsubscribed', sessions: [], all: false });
      return;
    }
    const sessions = uniqueIds(frame.sessions);
    for (const sessionId of sessions) this.sessions.delete(sessionId);
    this.sendFrame({ type: 'unsubscribed', sessions, all: this.all });
  }

  /**
   * A fresh lookup per requested session. A failed lookup refuses that session
   * (the client may retry) rather than failing the frame.
   */
  private async checkExplicit(
    sessionIds: readonly string[],
  ): Promise<{ granted: string[]; refused: string[] }> {
    const answers = await this.lookUpAgain(sessionIds);
    const granted: string[] = [];
    const refused: string[] = [];
    sessionIds.forEach((id, index) => (answers[index] === true ? granted : refused).push(id));
    return { granted, refused };
  }

  /** Fresh lookups, a few at a time; `undefined` for one that failed (logged here). */
  private async lookUpAgain(sessionIds: readonly string[]): Promise<(boolean | undefined)[]> {
    const answers: (boolean | undefined)[] = [];
    for (let start = 0; start < sessionIds.length; start += SUBSCRIBE_LOOKUP_CONCURRENCY) {
      const batch = sessionIds.slice(start, start + SUBSCRIBE_LOOKUP_CONCURRENCY);
      const settled = await Promise.allSettled(batch.map((id) => this.visibility.refresh(id)));
      settled.forEach((result, index) => {
        if (result.status === 'rejected') {
          this.settings.logger.warn(
            { err: result.reason as unknown, session_id: batch[index] },
            'events.visibility_failed',
          );
        }
        answers.push(result.status === 'fulfilled' ? result.value : undefined);
      });
    }
    return answers;
  }

  /**
   * After a membership change: a person in no workspace can hear nothing, so
   * the socket closes; otherwise the lost explicit subscriptions end and the
   * client hears so. A failed lookup ends nothing: a storage fault is no lost
   * access, and the session's next event asks again.
   */
  private async reviewAccess(): Promise<void> {
    if (this.principal.kind !== 'user') return;
    const explicit = [...this.sessions];
    const answers = await this.lookUpAgain(explicit);
    const standing = await this.settings.standing(this.principal).catch((error: unknown) => {
      this.settings.logger.warn({ err: error }, 'events.standing_failed');
      return 'member' as const;
    });
    if (this.closed) return;
    if (standing === 'no_workspace') {
      this.closeSocket(EVENTS_CLOSE_NO_WORKSPACE, 'no workspace left');
      this.end('disconnected');
      return;
    }
    const lost = explicit.filter((id, index) => answers[index] === false && this.sessions.has(id));
    for (const sessionId of lost) this.sessions.delete(sessionId);
    this.sendFrame({ type: 'access_changed', ended: lost, all: this.all });
  }

  /** Nothing of a deleted session comes after its deletion: its answer is forgotten. */
  private async checkDeleted(event: DeletionEvent): Promise<boolean> {
    this.visibility.forget(event.session_id);
    const { principal } = this;
    if (principal.kind === 'agent') return principal.sessionId === event.session_id;
    return this.settings.canSeeWorkspace(principal, event.workspace_id);
  }

  private check(sessionId: string): Promise<boolean> {
    const { principal } = this;
    if (principal.kind === 'agent' && principal.sessionId !== sessionId) {
      return Promise.resolve(false);
    }
    return this.settings.canSeeSession(principal, sessionId);
  }

  private sendFrame(frame: ServerFrame): void {
    this.send(JSON.stringify(frame));
  }

  private send(text: string): void {
    if (this.closed || this.socket.readyState !== SOCKET_OPEN) return;
    if (this.socket.bufferedAmount > this.settings.maxBufferedBytes) {
      this.closeSlow('events.slow_consumer_closed');
      return;
    }
    try {
      this.hold();
      this.socket.send(text);
      // What a corked stream holds counts in bufferedAmount, as a backlog does.
      if (this.corked && this.socket.bufferedAmount >= this.corkedBytesMax) this.release();
    } catch (error) {
      this.settings.logger.warn({ err: error }, 'events.send_failed');
      this.fail();
    }
  }

  /**
   * Corks the stream until the current tick ends, once per tick. Every cork
   * is paired with one uncork: an early `release` leaves the scheduled one
   * nothing to do, and a cork after it schedules its own.
   */
  private hold(): void {
    if (this.stream === undefined || this.corked) return;
    this.corked = true;
    this.stream.cork();
    process.nextTick(() => {
      this.release();
    });
  }

  private release(): void {
    if (!this.corked) return;
    this.corked = false;
    this.stream?.uncork();
  }

  private closeSlow(logMessage: string): void {
    this.settings.logger.warn(
      {
        buffered_bytes: this.socket.bufferedAmount,
        waiting_events: this.waitingEvents,
        principal_kind: this.principal.kind,
      },
      logMessage,
    );
    this.closeSocket(CLOSE_SLOW_CONSUMER, 'subscriber too slow; reconnect and refetch');
    this.end('slow');
  }

  private fail(): void {
    this.closeSocket(CLOSE_INTERNAL_ERROR, 'internal error');
    this.end('failed');
  }

  private closeSocket(code: number, reason: string): void {
    try {
      this.socket.close(code, reason);
    } catch (error) {
      // The socket is already unusable; the connection ends either way.
      this.settings.logger.debug({ err: error }, 'events.close_failed');
    }
  }

  private end(reason: 'disconnected' | 'slow' | 'failed'): void {
    if (this.closed) return;
    this.closed = true;
    this.sessions.clear();
    this.queues.clear();
    this.settings.onClosed(this, reason);
  }
}
