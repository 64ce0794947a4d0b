/**
 * `GET /api/v1/events`: the WebSocket that streams session events to a
 * browser or agent. This file only glues a socket to the hub: it authenticates
 * the upgrade, keeps the connection alive, and hands frames over.
 *
 * Invariants: an unauthenticated request is refused before any upgrade
 * (401 JSON); a page's socket whose cookie signs in someone other than the
 * person the page names is closed (4409) before it hears anything; a peer
 * that misses a keepalive round trip is terminated so dead connections do
 * not count as subscribers.
 */
import type { Duplex } from 'node:stream';
import { EVENTS_KEEPALIVE_INTERVAL_MS } from '../tunables.js';
import type { upgradeWebSocket as nodeUpgradeWebSocket } from '@hono/node-server';
import type { Env, Hono } from 'hono';
import type { WSEvents } from 'hono/ws';
import { WebSocket, WebSocketServer } from 'ws';
import type { CredentialChannel, CredentialLease, Principal } from '../auth/index.js';
import { CLOSE_INTERNAL_ERROR, type EventHub, type EventSubscription } from '../events/index.js';
import type { Logger } from '../observability/index.js';
import {
  EVENTS_CLOSE_CREDENTIAL_REVOKED,
  EVENTS_CLOSE_SESSION_CHANGED,
  SIGNED_IN_AS_PARAM,
} from '../wire/index.js';
import { signedInSince } from './auth.js';
import { errorResponse } from './errors.js';

export const EVENTS_PATH = '/api/v1/events';
/**
 * `ws` closes the socket (1009) on frames beyond this. It sits above the
 * protocol's 16 KiB bound so a merely oversized frame gets an error frame and
 * the connection stays usable.
 */
export const MAX_WEBSOCKET_PAYLOAD_BYTES = 64 * 1024;

/** Who is behind an upgrade request; `undefined` when nobody is. */
export type PrincipalResolver = (request: Request) => Promise<Principal | undefined>;

/** The credential an accepted upgrade came with, watched while its socket is open. */
export interface UpgradeCredentials {
  credentialOf(request: Request): { secret: string; channel: CredentialChannel } | undefined;
  watch(secret: string, channel: CredentialChannel): CredentialLease;
}

type WebSocketContext = Parameters<NonNullable<WSEvents['onOpen']>>[1];

export interface EventsRouteDeps {
  readonly hub: EventHub;
  readonly resolvePrincipal: PrincipalResolver;
  /** A socket whose credential ends is closed (1008): revocation takes effect at once here too. */
  readonly credentials: UpgradeCredentials;
  /** `upgradeWebSocket` from `@hono/node-server`. */
  readonly upgradeWebSocket: typeof nodeUpgradeWebSocket;
  readonly logger: Logger;
  /** Protocol-level ping period; a peer silent for a whole period is terminated. */
  readonly keepaliveMs?: number;
}

/**
 * The TCP socket under each upgraded WebSocket, which `ws` keeps private. An
 * upgrade's request socket is the one the WebSocket then speaks over, and
 * `connection` is emitted before the route's `onOpen` runs.
 */
const byteStreams = new WeakMap<WebSocket, Duplex>();

/** The `ws` server `createAdaptorServer({ websocket: { server } })` needs. */
export function createEventsWebSocketServer(): WebSocketServer {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_WEBSOCKET_PAYLOAD_BYTES });
  wss.on('connection', (ws, request) => byteStreams.set(ws, request.socket));
  return wss;
}

/** Drops every open socket so `server.close()` can finish (upgraded sockets outlive `closeAllConnections`). */
export function terminateWebSockets(wss: WebSocketServer): void {
  for (const client of wss.clients) client.terminate();
}

export function registerEventsRoute<E extends Env>(app: Hono<E>, deps: EventsRouteDeps): void {
  app.get(EVENTS_PATH, async (c) => {
    const principal = await deps.resolvePrincipal(c.req.raw);
    const credential = deps.credentials.credentialOf(c.req.raw);
    if (principal === undefined || credential === undefined) {
      return errorResponse(c, 'unauthorized');
    }
    if (c.req.header('upgrade')?.toLowerCase() !== 'websocket') {
      return errorResponse(c, 'invalid_request', 'this endpoint speaks WebSocket only');
    }
    // A browser shows a refused upgrade as a bare failure, so the page hears why as a close code.
    const pageSignedInAs = c.req.query(SIGNED_IN_AS_PARAM);
    const events = signedInSince(credential.channel, principal, pageSignedInAs)
      ? closedAtOnce(EVENTS_CLOSE_SESSION_CHANGED, 'signed in as another person')
      : socketEvents(principal, credential, deps);
    return deps.upgradeWebSocket(c, events, {
      onError(error) {
        deps.logger.error({ err: error }, 'events.socket_handler_failed');
      },
    });
  });
}

function closedAtOnce(code: number, reason: string): WSEvents {
  return {
    onOpen(_event, ws: WebSocketContext) {
      ws.close(code, reason);
    },
  };
}

function socketEvents(
  principal: Principal,
  credential: { secret: string; channel: CredentialChannel },
  deps: EventsRouteDeps,
): WSEvents {
  let subscription: EventSubscription | undefined;
  let stopKeepalive: (() => void) | undefined;
  // Watched from open to close: an upgrade that never opens holds no lease.
  let lease: CredentialLease | undefined;
  return {
    onOpen(_event, ws: WebSocketContext) {
      const raw = ws.raw;
      if (!(raw instanceof WebSocket)) {
        // Only the `ws` server gives us bufferedAmount and ping; refuse rather than run blind.
        deps.logger.error('events.unexpected_socket');
        ws.close(CLOSE_INTERNAL_ERROR, 'internal error');
        return;
      }
      subscription = deps.hub.connect(raw, principal, byteStreams.get(raw));
      stopKeepalive = keepAlive(raw, deps.keepaliveMs ?? EVENTS_KEEPALIVE_INTERVAL_MS);
      lease = deps.credentials.watch(credential.secret, credential.channel);
      const revoked = () => {
        subscription?.disconnect();
        raw.close(EVENTS_CLOSE_CREDENTIAL_REVOKED, 'credentials revoked');
      };
      lease.revoked.addEventListener('abort', revoked, { once: true });
    },
    onMessage(event: { readonly data: unknown }) {
      void subscription?.receive(event.data);
    },
    onClose() {
      stopKeepalive?.();
      subscription?.disconnect();
      lease?.release();
    },
    onError(event) {
      // A close event always follows; this only records why.
      deps.logger.warn({ err: 'error' in event ? event.error : event.type }, 'events.socket_error');
    },
  };
}

function keepAlive(socket: WebSocket, intervalMs: number): () => void {
  let answered = true;
  const onPong = () => {
    answered = true;
  };
  socket.on('pong', onPong);
  const timer = setInterval(() => {
    if (!answered) {
      socket.terminate();
      return;
    }
    answered = false;
    socket.ping();
  }, intervalMs);
  // Keepalive alone must not hold the process open.
  timer.unref();
  return () => {
    clearInterval(timer);
    socket.off('pong', onPong);
  };
}
