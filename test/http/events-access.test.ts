/**
 * An events socket hears when its person loses a workspace: each explicit
 * subscription to a session they can no longer see ends with an
 * `access_changed` frame naming it, a subscriber of everything hears nothing
 * more of the lost workspace's sessions, and a person left in no workspace
 * is closed with 4403, on the replica that removed them and, through the
 * `access` wake, on another. Whole servers in this process: one on SQLite,
 * two replicas on one PostgreSQL.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { RunningServer } from '../../src/server.js';
import { EVENTS_CLOSE_NO_WORKSPACE, type ServerFrame } from '../../src/wire/index.js';
import { inProcessReplicas } from '../support/in-process-replicas.js';
import { bearerApi, type ApiCall } from '../support/in-process-server.js';

const ADMIN_TOKEN = 'events-access-admin-0123456789';
const HEARS_WITHIN_MS = 10_000;

interface Listener {
  readonly frames: ServerFrame[];
  readonly closed: Promise<number>;
  send(frame: unknown): void;
  /** The first frame of `type` from now on or already heard, within a bound. */
  next(type: ServerFrame['type']): Promise<ServerFrame | 'none'>;
}

describe('an events socket whose person loses a workspace', { timeout: 60_000 }, () => {
  const replicas = inProcessReplicas(ADMIN_TOKEN);
  const serve = (replicaId: string) => replicas.serve(replicaId);

  afterEach(() => replicas.dispose());

  /** A person, and a task (with its session) in each of `workspaces` they are a member of. */
  async function memberOf(admin: ApiCall, workspaces: number) {
    const user = await admin<{ user: { id: string }; token: string }>('POST', '/api/v1/users', {
      name: 'bob',
    });
    expect(user.status).toBe(201);
    const places: { workspaceId: string; sessionId: string }[] = [];
    for (let index = 0; index < workspaces; index++) {
      const workspace = await admin<{ workspace: { id: string } }>('POST', '/api/v1/workspaces', {
        name: `team ${index}`,
      });
      const workspaceId = workspace.json.workspace.id;
      const member = await admin('POST', `/api/v1/workspaces/${workspaceId}/members`, {
        user_id: user.json.user.id,
      });
      expect(member.status).toBe(201);
      const task = await admin<{ session: { id: string } }>('POST', '/api/v1/tasks', {
        title: `work ${index}`,
        workspace_id: workspaceId,
      });
      expect(task.status).toBe(201);
      places.push({ workspaceId, sessionId: task.json.session.id });
    }
    return { userId: user.json.user.id, token: user.json.token, places };
  }

  async function listen(server: RunningServer, token: string): Promise<Listener> {
    const socket = new WebSocket(`${server.url.replace(/^http/, 'ws')}/api/v1/events`, {
      headers: { authorization: `Bearer ${token}` },
    });
    replicas.keep(socket);
    const frames: ServerFrame[] = [];
    const waiters = new Set<() => void>();
    socket.on('message', (data: Buffer) => {
      frames.push(JSON.parse(data.toString()) as ServerFrame);
      for (const waiter of waiters) waiter();
    });
    const closed = new Promise<number>((resolve) => {
      socket.on('close', (code) => {
        resolve(code);
      });
    });
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => {
        resolve();
      });
      socket.once('error', reject);
    });
    return {
      frames,
      closed,
      send: (frame) => {
        socket.send(JSON.stringify(frame));
      },
      next: (type) =>
        new Promise((resolve) => {
          const look = () => {
            const found = frames.find((frame) => frame.type === type);
            if (found === undefined) return;
            waiters.delete(look);
            clearTimeout(timer);
            resolve(found);
          };
          const timer = setTimeout(() => {
            waiters.delete(look);
            resolve('none');
          }, HEARS_WITHIN_MS);
          waiters.add(look);
          look();
        }),
    };
  }

  async function subscribed(listener: Listener, frame: unknown): Promise<void> {
    listener.send(frame);
    expect(await listener.next('subscribed')).toMatchObject({ type: 'subscribed' });
  }

  async function remove(server: RunningServer, workspaceId: string, userId: string) {
    const removed = await fetch(
      `${server.url}/api/v1/workspaces/${workspaceId}/members/${userId}`,
      { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } },
    );
    expect(removed.status).toBe(204);
  }

  /** Waits, within a bound, until `condition` holds. */
  async function until(condition: () => boolean): Promise<void> {
    const deadline = Date.now() + HEARS_WITHIN_MS;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`not heard within ${HEARS_WITHIN_MS} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async function closeCode(closed: Promise<number>): Promise<number | 'still open'> {
    return Promise.race([
      closed,
      new Promise<'still open'>((resolve) =>
        setTimeout(() => {
          resolve('still open');
        }, HEARS_WITHIN_MS),
      ),
    ]);
  }

  it('ends the lost subscription with a frame and keeps the rest (SQLite)', async () => {
    await replicas.open('sqlite');
    const server = await serve('only');
    const admin = bearerApi(server.url, ADMIN_TOKEN);
    const bob = await memberOf(admin, 2);
    const [kept, lost] = bob.places;
    if (!kept || !lost) throw new Error('two workspaces expected');
    const listener = await listen(server, bob.token);
    await subscribed(listener, { type: 'subscribe', sessions: [kept.sessionId, lost.sessionId] });

    await remove(server, lost.workspaceId, bob.userId);

    expect(await listener.next('access_changed')).toEqual({
      type: 'access_changed',
      ended: [lost.sessionId],
      all: false,
    });
    // Still open, and still subscribed to what Bob sees.
    listener.send({ type: 'unsubscribe', sessions: [kept.sessionId] });
    expect(await listener.next('unsubscribed')).toEqual({
      type: 'unsubscribed',
      sessions: [kept.sessionId],
      all: false,
    });
  });

  it('sends a subscriber of everything no further event of the workspace lost (SQLite)', async () => {
    await replicas.open('sqlite');
    const server = await serve('only');
    const admin = bearerApi(server.url, ADMIN_TOKEN);
    const bob = await memberOf(admin, 2);
    const [kept, lost] = bob.places;
    if (!kept || !lost) throw new Error('two workspaces expected');
    const listener = await listen(server, bob.token);
    await subscribed(listener, { type: 'subscribe', all: true });
    const said = async (sessionId: string, text: string) => {
      const posted = await admin('POST', `/api/v1/sessions/${sessionId}/messages`, {
        text,
        admission_key: `${sessionId}-${text}`,
      });
      expect(posted.status).toBeLessThan(300);
    };
    const heard = (sessionId: string, from: number) =>
      listener.frames
        .slice(from)
        .some((frame) => frame.type === 'event' && frame.event.session_id === sessionId);
    // Before: Bob hears the session of the workspace he is about to lose.
    await said(lost.sessionId, 'before');
    await until(() => heard(lost.sessionId, 0));

    await remove(server, lost.workspaceId, bob.userId);
    expect(await listener.next('access_changed')).toEqual({
      type: 'access_changed',
      ended: [],
      all: true,
    });
    const after = listener.frames.length;
    await said(lost.sessionId, 'after');
    await said(kept.sessionId, 'after');
    await until(() => heard(kept.sessionId, after));
    // The lost session's event was published first; give it time to arrive, were it sent.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(heard(lost.sessionId, after)).toBe(false);
  });

  it('closes with 4403 once no workspace is left (SQLite)', async () => {
    await replicas.open('sqlite');
    const server = await serve('only');
    const admin = bearerApi(server.url, ADMIN_TOKEN);
    const bob = await memberOf(admin, 1);
    const [only] = bob.places;
    if (!only) throw new Error('a workspace expected');
    const listener = await listen(server, bob.token);
    await subscribed(listener, { type: 'subscribe', all: true });

    await remove(server, only.workspaceId, bob.userId);

    expect(await closeCode(listener.closed)).toBe(EVENTS_CLOSE_NO_WORKSPACE);
  });

  it('hears it on another replica, through the wake (PostgreSQL)', async () => {
    await replicas.open('postgres');
    const a = await serve('access-a');
    const admin = bearerApi(a.url, ADMIN_TOKEN);
    const bob = await memberOf(admin, 2);
    const [kept, lost] = bob.places;
    if (!kept || !lost) throw new Error('two workspaces expected');
    const onA = await listen(a, bob.token);
    await subscribed(onA, { type: 'subscribe', sessions: [kept.sessionId, lost.sessionId] });
    const b = await serve('access-b');

    await remove(b, lost.workspaceId, bob.userId);
    expect(await onA.next('access_changed')).toEqual({
      type: 'access_changed',
      ended: [lost.sessionId],
      all: false,
    });

    await remove(b, kept.workspaceId, bob.userId);
    expect(await closeCode(onA.closed)).toBe(EVENTS_CLOSE_NO_WORKSPACE);
  });
});
