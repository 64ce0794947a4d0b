/**
 * The events WebSocket end to end: a real server on loopback, a real `ws`
 * client, and visibility answered by the store on both drivers.
 */
import { once } from 'node:events';
import { get, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { upgradeWebSocket } from '@hono/node-server';
import { Hono } from 'hono';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket, type WebSocketServer } from 'ws';
import type { Principal } from '../../src/auth/principal.js';
import { createEventHub, type ClarionEvent, type EventHub } from '../../src/events/index.js';
import {
  createEventsWebSocketServer,
  EVENTS_PATH,
  registerEventsRoute,
  terminateWebSockets,
  type UpgradeCredentials,
} from '../../src/http/events-route.js';
import { requestCredential } from '../../src/http/auth.js';
import {
  addWorkspaceMember,
  canSeeSession,
  canSeeWorkspace,
  workspaceStanding,
  createUser,
  openStore,
  type Store,
} from '../../src/store/index.js';
import { createHttpServer } from '../../src/server/listen.js';
import { systemClock } from '../../src/support/clock.js';
import { EVENTS_CORKED_BYTES_MAX } from '../../src/tunables.js';
import { DRIVERS, freshDatabase, type TestDatabase } from '../support/databases.js';
import { seedSession, type Seeded } from '../support/seed.js';

const silent = pino({ level: 'silent' });

/** A connected client that collects JSON frames and hands them out in order. */
class TestClient {
  private readonly frames: unknown[] = [];
  private readonly waiting: ((frame: unknown) => void)[] = [];

  constructor(readonly socket: WebSocket) {
    socket.on('message', (data: Buffer) => {
      const frame: unknown = JSON.parse(data.toString('utf8'));
      const waiter = this.waiting.shift();
      if (waiter) waiter(frame);
      else this.frames.push(frame);
    });
  }

  send(frame: unknown): void {
    this.socket.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  next(timeoutMs = 20_000): Promise<unknown> {
    const queued = this.frames.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error('no frame arrived in time'));
      }, timeoutMs);
      this.waiting.push((frame) => {
        clearTimeout(timer);
        resolve(frame);
      });
    });
  }
}

function stateEvent(seeded: Seeded, revision: number): ClarionEvent {
  return {
    type: 'session.state_changed',
    session_id: seeded.session.id,
    task_id: seeded.task.id,
    revision,
    pending_action: 'clarification',
    state: 'waiting_for_input',
  };
}

/**
 * The tokens here are a map, not the store's rows: nothing revokes them, so
 * their sockets' leases never end (`test/http/events-revocation.test.ts`
 * revokes real ones).
 */
const UNREVOKED: UpgradeCredentials = {
  credentialOf: requestCredential,
  watch: () => ({
    revoked: new AbortController().signal,
    live: () => Promise.resolve(true),
    release: () => undefined,
  }),
};

describe.each(DRIVERS)('GET /api/v1/events on %s', (driver) => {
  let database: TestDatabase;
  let store: Store;
  let hub: EventHub;
  let wss: WebSocketServer;
  let server: Server;
  let url: string;
  let mine: Seeded;
  let theirs: Seeded;
  const tokens = new Map<string, Principal>();

  beforeEach(async () => {
    database = await freshDatabase(driver, { migrated: true });
    store = await openStore(database.target);
    const user = await createUser(store, { name: 'ada' });
    mine = await seedSession(store, 'mine');
    theirs = await seedSession(store, 'theirs');
    await addWorkspaceMember(store, {
      workspaceId: mine.task.workspace_id,
      userId: user.id,
      role: 'member',
    });
    tokens.set('user-token', { kind: 'user', userId: user.id, name: 'Test user', isAdmin: false });
    tokens.set('agent-token', { kind: 'agent', userId: user.id, sessionId: theirs.session.id });

    hub = createEventHub({
      canSeeSession: (principal, sessionId) => canSeeSession(store, principal, sessionId),
      canSeeWorkspace: (principal, workspaceId) => canSeeWorkspace(store, principal, workspaceId),
      standing: (principal) => workspaceStanding(store, principal),
      clock: systemClock(),
      logger: silent,
    });
    const app = new Hono();
    registerEventsRoute(app, {
      hub,
      upgradeWebSocket,
      logger: silent,
      keepaliveMs: 50,
      credentials: UNREVOKED,
      resolvePrincipal: (request) => {
        const token = /^Bearer (.+)$/.exec(request.headers.get('authorization') ?? '')?.[1];
        return Promise.resolve(token === undefined ? undefined : tokens.get(token));
      },
    });
    wss = createEventsWebSocketServer();
    server = createHttpServer(app.fetch, wss);
    await new Promise<void>((resolve) => {
      server.listen(0, '127.0.0.1', resolve);
    });
    url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}${EVENTS_PATH}`;
  });

  afterEach(async () => {
    terminateWebSockets(wss);
    await new Promise<void>((resolve) => {
      server.close(() => {
        resolve();
      });
      server.closeAllConnections();
    });
    await store.close();
    await database.dispose();
  });

  async function connect(token: string): Promise<TestClient> {
    const socket = new WebSocket(url, { headers: { authorization: `Bearer ${token}` } });
    const client = new TestClient(socket);
    await once(socket, 'open');
    return client;
  }

  it('refuses the upgrade with 401 without credentials', async () => {
    for (const headers of [{}, { authorization: 'Bearer wrong' }]) {
      const socket = new WebSocket(url, { headers });
      const [error] = (await once(socket, 'error')) as [Error];
      expect(error.message).toBe('Unexpected server response: 401');
    }
    expect(hub.subscriberCount).toBe(0);
  });

  it('refuses the upgrade with the catalogue body its content type announces', async () => {
    const refusal = await new Promise<{ status?: number; type?: string; body: string }>(
      (resolve, reject) => {
        const request = get(url.replace('ws:', 'http:'), {
          headers: {
            connection: 'Upgrade',
            upgrade: 'websocket',
            'sec-websocket-version': '13',
            'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
          },
        });
        request.on('upgrade', () => {
          reject(new Error('upgraded without credentials'));
        });
        request.on('error', reject);
        request.on('response', (response) => {
          let body = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (body += chunk));
          response.on('end', () => {
            resolve({ status: response.statusCode, type: response.headers['content-type'], body });
          });
        });
      },
    );
    expect(refusal.status).toBe(401);
    expect(refusal.type).toMatch(/^application\/json/);
    expect(JSON.parse(refusal.body)).toMatchObject({ code: 'unauthorized' });
    expect(hub.subscriberCount).toBe(0);
  });

  it('streams a published event to a subscriber of a visible session', async () => {
    const client = await connect('user-token');
    client.send({ type: 'subscribe', sessions: [mine.session.id] });
    expect(await client.next()).toEqual({
      type: 'subscribed',
      sessions: [mine.session.id],
      all: false,
      refused: [],
    });
    expect(hub.subscriberCount).toBe(1);

    hub.publish(stateEvent(theirs, 1));
    hub.publish(stateEvent(mine, 1));
    hub.publish(stateEvent(mine, 2));
    expect(await client.next()).toEqual({ type: 'event', event: stateEvent(mine, 1) });
    expect(await client.next()).toEqual({ type: 'event', event: stateEvent(mine, 2) });
  });

  it('delivers a burst larger than one corked write whole and in order, then the next tick', async () => {
    const client = await connect('user-token');
    client.send({ type: 'subscribe', sessions: [mine.session.id] });
    await client.next();
    const frameBytes = JSON.stringify({ type: 'event', event: stateEvent(mine, 1) }).length;
    const burst = Math.ceil((3 * EVENTS_CORKED_BYTES_MAX) / frameBytes);

    for (let revision = 1; revision <= burst; revision += 1)
      hub.publish(stateEvent(mine, revision));
    await new Promise((resolve) => setImmediate(resolve));
    hub.publish(stateEvent(mine, burst + 1));

    for (let revision = 1; revision <= burst + 1; revision += 1) {
      expect(await client.next()).toEqual({ type: 'event', event: stateEvent(mine, revision) });
    }
    expect(client.socket.readyState).toBe(WebSocket.OPEN);
    expect(hub.subscriberCount).toBe(1);
  });

  it('refuses an invisible session the same way as an unknown one', async () => {
    const client = await connect('user-token');
    client.send({ type: 'subscribe', sessions: [theirs.session.id, 'no-such-session'] });
    expect(await client.next()).toEqual({
      type: 'subscribed',
      sessions: [],
      all: false,
      refused: [theirs.session.id, 'no-such-session'],
    });

    client.send({ type: 'subscribe', all: true });
    expect(await client.next()).toMatchObject({ type: 'subscribed', all: true });
    hub.publish(stateEvent(theirs, 1));
    hub.publish(stateEvent(mine, 1));
    expect(await client.next()).toEqual({ type: 'event', event: stateEvent(mine, 1) });
  });

  it('gives an agent token its own session only', async () => {
    const client = await connect('agent-token');
    client.send({ type: 'subscribe', sessions: [mine.session.id, theirs.session.id] });
    expect(await client.next()).toEqual({
      type: 'subscribed',
      sessions: [theirs.session.id],
      all: false,
      refused: [mine.session.id],
    });
    hub.publish(stateEvent(mine, 1));
    hub.publish(stateEvent(theirs, 1));
    expect(await client.next()).toEqual({ type: 'event', event: stateEvent(theirs, 1) });
  });

  it('answers malformed frames with an error frame and keeps the connection', async () => {
    const client = await connect('user-token');
    client.send('{oops');
    expect(await client.next()).toMatchObject({ type: 'error', code: 'invalid_request' });
    client.send({ type: 'subscribe', sessions: ['x'.repeat(20 * 1024)] });
    expect(await client.next()).toMatchObject({
      type: 'error',
      code: 'invalid_request',
      error: expect.stringContaining('larger than') as unknown,
    });
    client.send({ type: 'unsubscribe', sessions: Array.from({ length: 501 }, (_, i) => `s${i}`) });
    expect(await client.next()).toMatchObject({ type: 'error', code: 'invalid_request' });

    client.send({ type: 'subscribe', sessions: [mine.session.id] });
    expect(await client.next()).toMatchObject({ type: 'subscribed', sessions: [mine.session.id] });
    expect(client.socket.readyState).toBe(WebSocket.OPEN);
  });

  it('answers a ping with a pong after the frames sent before it, the way a browser finds a dead socket', async () => {
    const client = await connect('user-token');
    client.send({ type: 'subscribe', sessions: [mine.session.id] });
    client.send({ type: 'ping' });
    expect(await client.next()).toMatchObject({ type: 'subscribed', sessions: [mine.session.id] });
    expect(await client.next()).toEqual({ type: 'pong' });
    hub.publish(stateEvent(mine, 1));
    expect(await client.next()).toEqual({ type: 'event', event: stateEvent(mine, 1) });
  });

  it('pings an idle connection and forgets the subscriber once it closes', async () => {
    const client = await connect('user-token');
    await once(client.socket, 'ping');
    expect(hub.subscriberCount).toBe(1);
    client.socket.close(1000, 'done');
    await once(client.socket, 'close');
    await expect.poll(() => hub.subscriberCount).toBe(0);
  });
});

describe('GET /api/v1/events without a socket', () => {
  const hub = createEventHub({
    canSeeSession: () => Promise.resolve(true),
    canSeeWorkspace: () => Promise.resolve(true),
    standing: () => Promise.resolve('member'),
    clock: systemClock(),
    logger: silent,
  });
  const app = new Hono();
  registerEventsRoute(app, {
    hub,
    upgradeWebSocket,
    logger: silent,
    credentials: UNREVOKED,
    resolvePrincipal: (request) =>
      Promise.resolve<Principal | undefined>(
        request.headers.get('authorization') === 'Bearer ok'
          ? { kind: 'user', userId: 'u', name: 'Test user', isAdmin: false }
          : undefined,
      ),
  });

  it('answers 401 with the catalogue body before looking at the upgrade', async () => {
    const response = await app.request(EVENTS_PATH, { headers: { upgrade: 'websocket' } });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({
      error: 'authentication required',
      code: 'unauthorized',
    });
  });

  it('answers 400 to an authenticated request that is not an upgrade', async () => {
    const response = await app.request(EVENTS_PATH, { headers: { authorization: 'Bearer ok' } });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 'invalid_request' });
  });
});
