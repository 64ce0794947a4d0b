/**
 * Issue 16, events across replicas with real processes: two `clarion serve`
 * on one embedded PostgreSQL. A browser's socket on B sees a session that
 * lives on A (its messages, its state changes, its consent request) with A's
 * revisions, after subscribing first and reading its snapshot from B.
 */
import { once } from 'node:events';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { EVENTS_VISIBILITY_TTL_MS } from '../../src/tunables.js';
import type { ClarionEvent } from '../../src/wire/index.js';
import { eventually } from '../support/clarification-harness.js';
import { startServing, type Serving } from '../support/clarion-process.js';
import { freshDatabase, type TestDatabase } from '../support/databases.js';
import { bearerApi } from '../support/in-process-server.js';

const TOKEN = 'two-replicas-admin-token-0123456';

/** A socket on `/api/v1/events` that keeps every frame. */
async function eventsSocket(url: string, token = TOKEN) {
  const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/api/v1/events`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const frames: { type: string; event?: ClarionEvent }[] = [];
  socket.on('message', (data: Buffer) => {
    frames.push(JSON.parse(data.toString('utf8')) as { type: string; event?: ClarionEvent });
  });
  await once(socket, 'open');
  socket.send(JSON.stringify({ type: 'subscribe', all: true }));
  await eventually(() => Promise.resolve(frames.some((frame) => frame.type === 'subscribed')));
  return {
    socket,
    types: () => frames.map((frame) => frame.type),
    events: (sessionId: string) =>
      frames.flatMap((frame) =>
        frame.type === 'event' && frame.event?.session_id === sessionId ? [frame.event] : [],
      ),
  };
}

const shape = (event: ClarionEvent) => ({
  type: event.type,
  revision: event.revision,
  ...('message' in event ? { message: event.message.id } : {}),
  ...('state' in event ? { state: event.state } : {}),
});

describe('events across two replicas on one PostgreSQL', () => {
  let database: TestDatabase | undefined;
  const servers: Serving[] = [];
  const sockets: WebSocket[] = [];

  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.close();
    for (const server of servers.splice(0)) await server.stop();
    await database?.dispose();
    database = undefined;
  });

  /** Replicas A and B on a fresh PostgreSQL, both started before any session exists (a start still resets every running session). */
  async function startTwo(): Promise<[Serving, Serving]> {
    database = await freshDatabase('postgres', { migrated: true });
    if (database.target.driver !== 'postgres') throw new Error('postgres expected');
    const env = {
      DATABASE_URL: database.target.url,
      CLARION_DATA_DIR: join(tmpdir(), 'clarion-unused'),
      CLARION_ADMIN_TOKEN: TOKEN,
    };
    const a = await startServing(env);
    servers.push(a);
    const b = await startServing(env);
    servers.push(b);
    return [a, b];
  }

  it('a person added on A sees, on B, the next event of a session they could not see, within the cache TTL', async () => {
    const [a, b] = await startTwo();
    const apiA = bearerApi(a.url, TOKEN);
    const bea = await apiA<{ user: { id: string }; token: string }>('POST', '/api/v1/users', {
      name: 'Bea',
    });
    expect(bea.status).toBe(201);
    const onB = await eventsSocket(b.url);
    const beaOnB = await eventsSocket(b.url, bea.json.token);
    sockets.push(onB.socket, beaOnB.socket);

    // A consent on A: its request reaches B, where Bea's socket learns she may not see it.
    const asking = await apiA<{ session: { id: string } }>('POST', '/api/v1/tasks', {
      title: 'Not yours yet',
      prompt: '/permission',
    });
    expect(asking.status).toBe(201);
    const sessionId = asking.json.session.id;
    await eventually(
      () =>
        Promise.resolve(
          onB.events(sessionId).some((event) => event.type === 'user_input.requested'),
        ),
      20_000,
    );
    const judgedAt = Date.now();
    expect(beaOnB.events(sessionId)).toEqual([]);

    const workspaces = await apiA<{ workspaces: { id: string; name: string }[] }>(
      'GET',
      '/api/v1/workspaces',
    );
    const team = workspaces.json.workspaces.find((workspace) => workspace.name === 'Default');
    const added = await apiA('POST', `/api/v1/workspaces/${team?.id ?? ''}/members`, {
      user_id: bea.json.user.id,
    });
    expect(added.status).toBe(201);
    const requests = await apiA<{ requests: { id: string; session_id: string }[] }>(
      'GET',
      '/api/v1/user-inputs',
    );
    const consent = requests.json.requests.find((request) => request.session_id === sessionId);
    const allowed = await apiA('POST', `/api/v1/user-inputs/${consent?.id ?? ''}/respond`, {
      option_id: 'allow-once',
    });
    expect(allowed.status).toBe(200);

    // Asked again at once on B: no wait for the answer B cached before she was added.
    await eventually(
      () =>
        Promise.resolve(
          beaOnB.events(sessionId).some((event) => event.type === 'user_input.settled'),
        ),
      20_000,
    );
    expect(Date.now() - judgedAt).toBeLessThan(EVENTS_VISIBILITY_TTL_MS);
  });

  it("a person's rules and People news from A reach the sockets on B they are for, and nobody else's", async () => {
    const [a, b] = await startTwo();
    const apiA = bearerApi(a.url, TOKEN);
    const workspaces = await apiA<{ workspaces: { id: string; name: string }[] }>(
      'GET',
      '/api/v1/workspaces',
    );
    const team = workspaces.json.workspaces.find((workspace) => workspace.name === 'Default');
    const person = async (name: string) => {
      const created = await apiA<{ user: { id: string }; token: string }>('POST', '/api/v1/users', {
        name,
      });
      expect(created.status).toBe(201);
      const added = await apiA('POST', `/api/v1/workspaces/${team?.id ?? ''}/members`, {
        user_id: created.json.user.id,
      });
      expect(added.status).toBe(201);
      return created.json;
    };
    const bea = await person('Bea');
    const cy = await person('Cy');
    const adminOnB = await eventsSocket(b.url);
    const beaOnB = await eventsSocket(b.url, bea.token);
    const cyOnB = await eventsSocket(b.url, cy.token);
    sockets.push(adminOnB.socket, beaOnB.socket, cyOnB.socket);
    const heard = (socket: { types: () => string[] }, type: string) =>
      socket.types().filter((each) => each === type).length;

    // Bea keeps an "always" on A: her socket on B hears it, and the admin's (who lists it).
    const beaOnA = bearerApi(a.url, bea.token);
    const asking = await beaOnA<{ session: { id: string } }>('POST', '/api/v1/tasks', {
      title: 'Always, across replicas',
      prompt: '/permission',
    });
    expect(asking.status).toBe(201);
    let consent: string | undefined;
    await eventually(async () => {
      const requests = await beaOnA<{ requests: { id: string; session_id: string }[] }>(
        'GET',
        '/api/v1/user-inputs',
      );
      consent = requests.json.requests.find(
        (request) => request.session_id === asking.json.session.id,
      )?.id;
      return consent !== undefined;
    }, 20_000);
    const allowed = await beaOnA('POST', `/api/v1/user-inputs/${consent ?? ''}/respond`, {
      option_id: 'allow-always',
    });
    expect(allowed.status).toBe(200);
    await eventually(() => Promise.resolve(heard(beaOnB, 'consent_rules_changed') === 1), 20_000);
    await eventually(() => Promise.resolve(heard(adminOnB, 'consent_rules_changed') === 1), 20_000);

    // Revoked on A: heard again on B.
    const rules = await beaOnA<{ rules: { id: string }[] }>('GET', '/api/v1/consent-rules');
    expect(rules.json.rules).toHaveLength(1);
    // A 204 has no body for `bearerApi` to read.
    const revoked = await fetch(`${a.url}/api/v1/consent-rules/${rules.json.rules[0]?.id ?? ''}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${bea.token}` },
    });
    expect(revoked.status).toBe(204);
    await eventually(() => Promise.resolve(heard(beaOnB, 'consent_rules_changed') === 2), 20_000);

    // A workspace made on A, which no one here is in: the admin's socket on B hears it.
    const made = await apiA('POST', '/api/v1/workspaces', { name: 'Night shift' });
    expect(made.status).toBe(201);
    await eventually(() => Promise.resolve(heard(adminOnB, 'people_changed') >= 1), 20_000);
    expect(heard(beaOnB, 'people_changed')).toBe(0);

    // Someone joins Bea's workspace on A: she lists its members, so her socket on B hears it.
    const dee = await apiA<{ user: { id: string } }>('POST', '/api/v1/users', { name: 'Dee' });
    const joined = await apiA('POST', `/api/v1/workspaces/${team?.id ?? ''}/members`, {
      user_id: dee.json.user.id,
    });
    expect(joined.status).toBe(201);
    await eventually(() => Promise.resolve(heard(beaOnB, 'people_changed') === 1), 20_000);

    // Bea saves a preference on A: her socket on B hears it.
    const saved = await beaOnA('PUT', '/api/v1/notification-settings', { include_question: true });
    expect(saved.status).toBe(200);
    await eventually(() => Promise.resolve(heard(beaOnB, 'notifications_changed') === 1), 20_000);
    const minted = await beaOnA('POST', '/api/v1/tokens', { name: 'CI runner' });
    expect(minted.status).toBe(201);
    await eventually(() => Promise.resolve(heard(beaOnB, 'tokens_changed') === 1), 20_000);

    // Cy heard nothing of Bea's rules or notifications.
    expect(heard(cyOnB, 'consent_rules_changed')).toBe(0);
    expect(heard(cyOnB, 'notifications_changed')).toBe(0);
    expect(heard(cyOnB, 'tokens_changed')).toBe(0);
  });

  it("a socket on B sees A's session live, with A's revisions", async () => {
    const [a, b] = await startTwo();
    const onA = await eventsSocket(a.url);
    const onB = await eventsSocket(b.url);
    sockets.push(onA.socket, onB.socket);

    // The session lives on A: its agent runs there and its writes are A's.
    const apiA = bearerApi(a.url, TOKEN);
    const apiB = bearerApi(b.url, TOKEN);
    const created = await apiA<{ task: { id: string }; session: { id: string } }>(
      'POST',
      '/api/v1/tasks',
      { title: 'Across replicas', prompt: 'hello from A' },
    );
    expect(created.status).toBe(201);
    const sessionId = created.json.session.id;

    // Subscribed first, then the snapshot from B: nothing after it is missed.
    const snapshot = await apiB<{ sessions: { id: string; revision: number }[] }>(
      'GET',
      `/api/v1/tasks/${created.json.task.id}/sessions`,
    );
    expect(snapshot.status).toBe(200);
    const snapshotRevision = snapshot.json.sessions.find((s) => s.id === sessionId)?.revision;
    expect(snapshotRevision).toBeDefined();
    // Read after the revision: it holds at least what that revision did.
    const snapshotMessages = await apiB<{ messages: { id: string }[] }>(
      'GET',
      `/api/v1/sessions/${sessionId}/messages?limit=500`,
    );

    // The demo agent answers on A; B's socket sees the reply and the state changes.
    await eventually(
      () =>
        Promise.resolve(
          onB
            .events(sessionId)
            .some(
              (event) =>
                event.type === 'message.added' &&
                event.message.author === 'agent' &&
                event.message.type === 'message',
            ),
        ),
      20_000,
    );
    await eventually(
      () =>
        Promise.resolve(
          onB.events(sessionId).some((event) => event.type === 'session.state_changed'),
        ),
      20_000,
    );
    // Let A's last writes reach B, then compare: B saw what A's own socket saw, once, in order.
    await eventually(async () => {
      const now = await apiA<{ sessions: { id: string; revision: number }[] }>(
        'GET',
        `/api/v1/tasks/${created.json.task.id}/sessions`,
      );
      const revision = now.json.sessions.find((s) => s.id === sessionId)?.revision ?? -1;
      const seen = (events: ClarionEvent[]) => Math.max(-1, ...events.map((e) => e.revision));
      return seen(onA.events(sessionId)) >= revision && seen(onB.events(sessionId)) >= revision;
    }, 20_000);
    await new Promise((resolve) => setTimeout(resolve, 500));

    const fromA = onA.events(sessionId).map(shape);
    const fromB = onB.events(sessionId).map(shape);
    expect(fromB).toEqual(fromA);
    const revisions = fromB.map((event) => event.revision);
    expect([...revisions].sort((x, y) => x - y)).toEqual(revisions);

    // The snapshot plus the events past its revision hold every message A has.
    const final = await apiA<{ messages: { id: string }[] }>(
      'GET',
      `/api/v1/sessions/${sessionId}/messages?limit=500`,
    );
    const addedAfter = onB
      .events(sessionId)
      .filter((event) => event.revision > (snapshotRevision ?? 0))
      .flatMap((event) => (event.type === 'message.added' ? [event.message.id] : []));
    const known = new Set([...snapshotMessages.json.messages.map((m) => m.id), ...addedAfter]);
    expect(final.json.messages.length).toBeGreaterThan(1);
    for (const { id } of final.json.messages) expect(known.has(id)).toBe(true);

    // An event no session write carries (the registry's consent request on A) crosses too.
    const asking = await apiA<{ session: { id: string } }>('POST', '/api/v1/tasks', {
      title: 'Consent across replicas',
      prompt: '/permission',
    });
    expect(asking.status).toBe(201);
    await eventually(
      () =>
        Promise.resolve(
          onB.events(asking.json.session.id).some((event) => event.type === 'user_input.requested'),
        ),
      20_000,
    );
  });
});
