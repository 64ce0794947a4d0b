import type { Server } from 'node:http';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { Hono } from 'hono';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { bootstrapAccounts } from '../../src/auth/bootstrap.js';
import { issueToken } from '../../src/auth/tokens.js';
import { registerAccountRoutes } from '../../src/http/admin-routes.js';
import { mountApiAccess, principalOf } from '../../src/http/auth.js';
import type { AppEnv } from '../../src/http/env.js';
import { parseJsonBody } from '../../src/http/request-guards.js';
import { inputIssues, isJsonMediaType } from '../../src/wire/index.js';
import {
  canSeeSession,
  canSeeTask,
  createTask,
  createSession,
  createUser,
  listUsers,
  openStore,
  type Store,
} from '../../src/store/index.js';
import { recordedAccounts } from '../support/accounts.js';
import { DRIVERS, freshDatabase, type TestDatabase } from '../support/databases.js';
import { fakeClock, sequentialIds } from '../support/fakes.js';
import { seedSession } from '../support/seed.js';

const ADMIN_TOKEN = 'test-admin-token-0123456789';
const MAX_BODY_BYTES = 1024;

interface WireUser {
  id: string;
  name: string;
  is_admin: boolean;
}

/** A small app from the register functions, plus probes that ask `store/access.ts`. */
function buildApp(store: Store, accessChanged?: (userId: string) => void): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  mountApiAccess(app, { store, maxBodyBytes: MAX_BODY_BYTES });
  const accounts = recordedAccounts(store, accessChanged ? { accessChanged } : {}).accounts;
  registerAccountRoutes(app, { store, accounts });
  app.get('/api/v1/probe/sessions/:id', async (c) => {
    const principal = principalOf(c);
    if (!principal) return c.json({ visible: false });
    return c.json({ visible: await canSeeSession(store, principal, c.req.param('id')) });
  });
  app.get('/api/v1/probe/tasks/:id', async (c) => {
    const principal = principalOf(c);
    if (!principal) return c.json({ visible: false });
    return c.json({ visible: await canSeeTask(store, principal, c.req.param('id')) });
  });
  const probeBody = z.strictObject({
    n: z.number().int(),
    tags: z.array(z.string()).max(2).optional(),
  });
  app.post('/api/v1/probe/echo', async (c) => {
    const body = await parseJsonBody(c, probeBody);
    return body.ok ? c.json(body.value) : body.response;
  });
  return app;
}

describe.each(DRIVERS)('account routes on %s', (driver) => {
  let database: TestDatabase;
  let store: Store;
  let app: Hono<AppEnv>;
  /** Whose memberships the routes said changed, in order (the events hub asks again for them). */
  let accessChanges: string[];

  beforeEach(async () => {
    database = await freshDatabase(driver, { migrated: true });
    store = await openStore(database.target, { clock: fakeClock(), ids: sequentialIds() });
    await bootstrapAccounts(store, { adminToken: ADMIN_TOKEN });
    accessChanges = [];
    app = buildApp(store, (userId) => accessChanges.push(userId));
  });

  afterEach(async () => {
    await store.close();
    await database.dispose();
  });

  async function call(
    path: string,
    token: string,
    init: { method?: string; json?: unknown } = {},
  ): Promise<Response> {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (init.json !== undefined) headers['content-type'] = 'application/json';
    return app.request(path, {
      method: init.method ?? 'GET',
      headers,
      body: init.json === undefined ? undefined : JSON.stringify(init.json),
    });
  }

  async function newUser(
    name: string,
    isAdmin = false,
  ): Promise<{ user: WireUser; token: string }> {
    const response = await call('/api/v1/users', ADMIN_TOKEN, {
      method: 'POST',
      json: { name, is_admin: isAdmin },
    });
    expect(response.status).toBe(201);
    return (await response.json()) as { user: WireUser; token: string };
  }

  async function newWorkspace(name: string): Promise<string> {
    const response = await call('/api/v1/workspaces', ADMIN_TOKEN, {
      method: 'POST',
      json: { name },
    });
    expect(response.status).toBe(201);
    return ((await response.json()) as { workspace: { id: string } }).workspace.id;
  }

  describe('authentication', () => {
    it('answers 401 without or with bad credentials', async () => {
      const cases: Record<string, string>[] = [
        {},
        { authorization: 'Bearer clr_nope' },
        { authorization: `Basic ${Buffer.from(`admin:${ADMIN_TOKEN}`).toString('base64')}` },
        { authorization: 'Bearer' },
        { cookie: 'clarion_session=clr_nope' },
        // A bad bearer is not rescued by a cookie, even a plausible one.
        { authorization: 'Bearer clr_nope', cookie: `clarion_session=${ADMIN_TOKEN}` },
      ];
      for (const headers of cases) {
        const response = await app.request('/api/v1/me', { headers });
        expect(response.status).toBe(401);
        expect(await response.json()).toEqual({
          error: 'authentication required',
          code: 'unauthorized',
        });
      }
    });

    it('does not take a user token from the cookie', async () => {
      const response = await app.request('/api/v1/me', {
        headers: { cookie: `clarion_session=${ADMIN_TOKEN}` },
      });
      expect(response.status).toBe(401);
    });

    it('authenticates a bearer token, without any origin check', async () => {
      const response = await app.request('/api/v1/workspaces', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${ADMIN_TOKEN}`,
          'content-type': 'application/json',
          origin: 'http://evil.example',
        },
        body: JSON.stringify({ name: 'from a script' }),
      });
      expect(response.status).toBe(201);
      const me = await call('/api/v1/me', ADMIN_TOKEN);
      expect(await me.json()).toMatchObject({
        user: { name: 'admin', is_admin: true },
        kind: 'user',
      });
    });
  });

  describe('users', () => {
    it('lets an admin create a user whose token works at once', async () => {
      const created = await newUser('grace');
      expect(created.user).toMatchObject({ name: 'grace', is_admin: false });
      expect(created.token).toMatch(/^clr_/);

      const me = await call('/api/v1/me', created.token);
      expect(await me.json()).toEqual({
        user: { id: created.user.id, name: 'grace', is_admin: false },
        kind: 'user',
      });
      const list = await call('/api/v1/users', ADMIN_TOKEN);
      const names = ((await list.json()) as { users: WireUser[] }).users.map((user) => user.name);
      expect(names).toEqual(['admin', 'grace']);
    });

    it('refuses admin routes to a non-admin with 403', async () => {
      const { token } = await newUser('grace');
      const workspaceId = await newWorkspace('team');
      const attempts = [
        call('/api/v1/users', token),
        call('/api/v1/users', token, { method: 'POST', json: { name: 'mallory' } }),
        call('/api/v1/workspaces', token, { method: 'POST', json: { name: 'mine' } }),
        call(`/api/v1/workspaces/${workspaceId}/members`, token, {
          method: 'POST',
          json: { user_id: 'id-0001' },
        }),
        call(`/api/v1/workspaces/${workspaceId}/members/id-0001`, token, { method: 'DELETE' }),
        call('/api/v1/users/id-0001', token, { method: 'DELETE' }),
      ];
      for (const response of await Promise.all(attempts)) {
        expect(response.status).toBe(403);
        expect(await response.json()).toMatchObject({ code: 'forbidden' });
      }
      expect((await listUsers(store)).map((user) => user.name)).toEqual(['admin', 'grace']);
    });

    it('deletes a user, whose token is refused at once; never the caller', async () => {
      const { user, token } = await newUser('grace', true);
      expect((await call('/api/v1/me', token)).status).toBe(200);

      const deleted = await call(`/api/v1/users/${user.id}`, ADMIN_TOKEN, { method: 'DELETE' });
      expect(deleted.status).toBe(204);
      expect((await call('/api/v1/me', token)).status).toBe(401);
      const again = await call(`/api/v1/users/${user.id}`, ADMIN_TOKEN, { method: 'DELETE' });
      expect(again.status).toBe(404);

      const me = (await (await call('/api/v1/me', ADMIN_TOKEN)).json()) as { user: WireUser };
      const self = await call(`/api/v1/users/${me.user.id}`, ADMIN_TOKEN, { method: 'DELETE' });
      expect(self.status).toBe(409);
      expect((await listUsers(store)).map((one) => one.name)).toEqual(['admin']);
    });

    it('answers a NUL user ID as an unknown one (404, not 500), and deletes nothing', async () => {
      const { token } = await newUser('grace');
      const unknown = await call('/api/v1/users/nope', ADMIN_TOKEN, { method: 'DELETE' });
      expect(unknown.status).toBe(404);
      const unknownBody: unknown = await unknown.json();
      expect(unknownBody).toEqual({ error: 'unknown user', code: 'not_found' });
      for (const id of ['%00', 'id-0001%00', '%00id']) {
        const response = await call(`/api/v1/users/${id}`, ADMIN_TOKEN, { method: 'DELETE' });
        expect({ id, status: response.status }).toEqual({ id, status: 404 });
        expect(await response.json()).toEqual(unknownBody);
      }
      // A non-admin is refused before the ID is looked at, whatever it is.
      const refused = await call('/api/v1/users/%00', token, { method: 'DELETE' });
      expect(refused.status).toBe(403);
      expect((await listUsers(store)).map((user) => user.name)).toEqual(['admin', 'grace']);
    });
  });

  describe('workspaces and members', () => {
    it('lists only the workspaces the caller belongs to', async () => {
      const { user, token } = await newUser('grace');
      const teamId = await newWorkspace('team');
      await newWorkspace('other');

      const before = await call('/api/v1/workspaces', token);
      expect(await before.json()).toEqual({ workspaces: [] });
      const added = await call(`/api/v1/workspaces/${teamId}/members`, ADMIN_TOKEN, {
        method: 'POST',
        json: { user_id: user.id },
      });
      expect(added.status).toBe(201);
      const after = (await (await call('/api/v1/workspaces', token)).json()) as {
        workspaces: { name: string }[];
      };
      expect(after.workspaces.map((workspace) => workspace.name)).toEqual(['team']);
      const admins = (await (await call('/api/v1/workspaces', ADMIN_TOKEN)).json()) as {
        workspaces: { name: string }[];
      };
      expect(admins.workspaces.map((workspace) => workspace.name)).toEqual([
        'Default',
        'team',
        'other',
      ]);
    });

    it('adds members idempotently and answers 404 for unknown workspaces and users', async () => {
      const { user } = await newUser('grace');
      const teamId = await newWorkspace('team');
      const path = `/api/v1/workspaces/${teamId}/members`;

      const first = await call(path, ADMIN_TOKEN, { method: 'POST', json: { user_id: user.id } });
      const again = await call(path, ADMIN_TOKEN, { method: 'POST', json: { user_id: user.id } });
      expect(first.status).toBe(201);
      expect(again.status).toBe(200);
      expect(await again.json()).toEqual(await first.json());

      const unknownWorkspace = await call('/api/v1/workspaces/nope/members', ADMIN_TOKEN, {
        method: 'POST',
        json: { user_id: user.id },
      });
      expect(unknownWorkspace.status).toBe(404);
      const unknownUser = await call(path, ADMIN_TOKEN, {
        method: 'POST',
        json: { user_id: 'nope' },
      });
      expect(unknownUser.status).toBe(404);

      const members = (await (await call(path, ADMIN_TOKEN)).json()) as {
        members: { user_name: string; role: string }[];
      };
      expect(members.members.map((member) => [member.user_name, member.role])).toEqual([
        ['admin', 'owner'],
        ['grace', 'member'],
      ]);
    });

    it('keeps an owner in every workspace: removing, demoting or deleting the last is 409', async () => {
      const me = (await (await call('/api/v1/me', ADMIN_TOKEN)).json()) as { user: WireUser };
      const { user: grace } = await newUser('grace');
      const teamId = await newWorkspace('team');
      const path = `/api/v1/workspaces/${teamId}/members`;
      const roles = async () =>
        (
          (await (await call(path, ADMIN_TOKEN)).json()) as {
            members: { user_name: string; role: string }[];
          }
        ).members.map((member) => `${member.user_name}:${member.role}`);
      const lastOwner = {
        code: 'conflict',
        error: '"team" would be left without an owner: make another member an owner first',
      };

      const removeMe = await call(`${path}/${me.user.id}`, ADMIN_TOKEN, { method: 'DELETE' });
      expect(removeMe.status).toBe(409);
      expect(await removeMe.json()).toEqual(lastOwner);
      const demote = await call(path, ADMIN_TOKEN, {
        method: 'POST',
        json: { user_id: me.user.id, role: 'member' },
      });
      expect(demote.status).toBe(409);
      expect(await roles()).toEqual(['admin:owner']);

      // Grace, made the only owner, cannot be deleted with her workspace left unowned.
      const promote = await call(path, ADMIN_TOKEN, {
        method: 'POST',
        json: { user_id: grace.id, role: 'owner' },
      });
      expect(promote.status).toBe(201);
      expect((await call(`${path}/${me.user.id}`, ADMIN_TOKEN, { method: 'DELETE' })).status).toBe(
        204,
      );
      const deleteGrace = await call(`/api/v1/users/${grace.id}`, ADMIN_TOKEN, {
        method: 'DELETE',
      });
      expect(deleteGrace.status).toBe(409);
      expect(await deleteGrace.json()).toEqual(lastOwner);
      expect(await roles()).toEqual(['grace:owner']);

      // With a second owner, either may go.
      await call(path, ADMIN_TOKEN, {
        method: 'POST',
        json: { user_id: me.user.id, role: 'owner' },
      });
      const deleted = await call(`/api/v1/users/${grace.id}`, ADMIN_TOKEN, { method: 'DELETE' });
      expect(deleted.status).toBe(204);
      expect(await roles()).toEqual(['admin:owner']);
    });

    it('says whose access changed when a workspace is created, a member added or removed or a user deleted, and only then', async () => {
      const { user } = await newUser('grace');
      expect(accessChanges).toEqual([]);
      const teamId = await newWorkspace('team');
      // Its creator is its first owner.
      const creator = (
        (await (await call('/api/v1/me', ADMIN_TOKEN)).json()) as { user: { id: string } }
      ).user.id;
      expect(accessChanges).toEqual([creator]);
      accessChanges.length = 0;
      const path = `/api/v1/workspaces/${teamId}/members`;
      const add = (userId: string) =>
        call(path, ADMIN_TOKEN, { method: 'POST', json: { user_id: userId } });

      expect((await add('nope')).status).toBe(404);
      expect(accessChanges).toEqual([]);
      expect((await add(user.id)).status).toBe(201);
      expect(accessChanges).toEqual([user.id]);
      const removed = await call(`${path}/${user.id}`, ADMIN_TOKEN, { method: 'DELETE' });
      expect(removed.status).toBe(204);
      expect(accessChanges).toEqual([user.id, user.id]);
      const deleted = await call(`/api/v1/users/${user.id}`, ADMIN_TOKEN, { method: 'DELETE' });
      expect(deleted.status).toBe(204);
      expect(accessChanges).toEqual([user.id, user.id, user.id]);
    });

    it('answers a NUL workspace or member ID as an unknown one (404, not 500)', async () => {
      const { user, token } = await newUser('grace');
      const teamId = await newWorkspace('team');
      const members = `/api/v1/workspaces/${teamId}/members`;
      expect(
        (await call(members, ADMIN_TOKEN, { method: 'POST', json: { user_id: user.id } })).status,
      ).toBe(201);
      const attempts: [string, Promise<Response>][] = [
        [
          'add to',
          call('/api/v1/workspaces/%00/members', ADMIN_TOKEN, {
            method: 'POST',
            json: { user_id: user.id },
          }),
        ],
        ['list', call('/api/v1/workspaces/%00/members', ADMIN_TOKEN)],
        ['list as member', call(`/api/v1/workspaces/${teamId}%00/members`, token)],
        [
          'remove from',
          call(`/api/v1/workspaces/%00/members/${user.id}`, ADMIN_TOKEN, { method: 'DELETE' }),
        ],
        ['remove', call(`${members}/%00`, ADMIN_TOKEN, { method: 'DELETE' })],
        ['remove suffixed', call(`${members}/${user.id}%00`, ADMIN_TOKEN, { method: 'DELETE' })],
      ];
      for (const [name, pending] of attempts) {
        const response = await pending;
        expect({ name, status: response.status }).toEqual({ name, status: 404 });
        expect(await response.json()).toMatchObject({ code: 'not_found' });
      }
      const after = (await (await call(members, ADMIN_TOKEN)).json()) as {
        members: { user_name: string }[];
      };
      expect(after.members.map((member) => member.user_name)).toEqual(['admin', 'grace']);
    });

    it('shows members to members and admins only; others get 404', async () => {
      const grace = await newUser('grace');
      const alan = await newUser('alan');
      const teamId = await newWorkspace('team');
      await call(`/api/v1/workspaces/${teamId}/members`, ADMIN_TOKEN, {
        method: 'POST',
        json: { user_id: grace.user.id },
      });
      expect((await call(`/api/v1/workspaces/${teamId}/members`, grace.token)).status).toBe(200);
      const outsider = await call(`/api/v1/workspaces/${teamId}/members`, alan.token);
      const unknown = await call('/api/v1/workspaces/nope/members', alan.token);
      expect(outsider.status).toBe(404);
      expect(await outsider.json()).toEqual(await unknown.json());
    });

    it('grants and withdraws task access through membership', async () => {
      const grace = await newUser('grace');
      const teamId = await newWorkspace('team');
      const task = await createTask(store, { workspaceId: teamId, title: 'parser' });
      const session = await createSession(store, { taskId: task.id, agentProfile: 'demo' });
      const sees = async () => {
        const taskProbe = await call(`/api/v1/probe/tasks/${task.id}`, grace.token);
        const sessionProbe = await call(`/api/v1/probe/sessions/${session.id}`, grace.token);
        return [await taskProbe.json(), await sessionProbe.json()];
      };

      expect(await sees()).toEqual([{ visible: false }, { visible: false }]);
      await call(`/api/v1/workspaces/${teamId}/members`, ADMIN_TOKEN, {
        method: 'POST',
        json: { user_id: grace.user.id },
      });
      expect(await sees()).toEqual([{ visible: true }, { visible: true }]);

      const path = `/api/v1/workspaces/${teamId}/members/${grace.user.id}`;
      expect((await call(path, ADMIN_TOKEN, { method: 'DELETE' })).status).toBe(204);
      expect((await call(path, ADMIN_TOKEN, { method: 'DELETE' })).status).toBe(404);
      expect(await sees()).toEqual([{ visible: false }, { visible: false }]);
    });
  });

  describe('agent tokens', () => {
    it('reach only their own session and no account route', async () => {
      const owner = await createUser(store, { name: 'owner' });
      const mine = await seedSession(store, 'mine');
      const other = await seedSession(store, 'other');
      const { secret } = await issueToken(store, {
        kind: 'agent',
        userId: owner.id,
        sessionId: mine.session.id,
      });

      const me = await call('/api/v1/me', secret);
      expect(await me.json()).toEqual({
        user: { id: owner.id, name: 'owner', is_admin: false },
        kind: 'agent',
        session: { id: mine.session.id },
      });
      const own = await call(`/api/v1/probe/sessions/${mine.session.id}`, secret);
      const foreign = await call(`/api/v1/probe/sessions/${other.session.id}`, secret);
      expect(await own.json()).toEqual({ visible: true });
      expect(await foreign.json()).toEqual({ visible: false });

      const attempts = await Promise.all([
        call('/api/v1/users', secret),
        call('/api/v1/users', secret, { method: 'POST', json: { name: 'x' } }),
        call('/api/v1/workspaces', secret),
        call('/api/v1/workspaces', secret, { method: 'POST', json: { name: 'x' } }),
        call(`/api/v1/workspaces/${mine.task.workspace_id}/members`, secret),
      ]);
      expect(attempts.map((response) => response.status)).toEqual([403, 403, 403, 403, 403]);
    });
  });

  describe('request guards', () => {
    async function userNames(): Promise<string[]> {
      return (await listUsers(store)).map((user) => user.name);
    }

    it('answers 413 for a body over the limit and changes nothing', async () => {
      const before = await userNames();
      const big = JSON.stringify({ name: 'x'.repeat(MAX_BODY_BYTES) });
      const response = await call('/api/v1/users', ADMIN_TOKEN, {
        method: 'POST',
        json: JSON.parse(big) as unknown,
      });
      expect(response.status).toBe(413);
      expect(await response.json()).toMatchObject({ code: 'payload_too_large' });

      const declared = await app.request('/api/v1/users', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${ADMIN_TOKEN}`,
          'content-type': 'application/json',
          'content-length': String(MAX_BODY_BYTES + 1),
        },
        body: big.slice(0, MAX_BODY_BYTES + 1),
      });
      expect(declared.status).toBe(413);
      expect(await userNames()).toEqual(before);
    });

    it('answers 415 for a body that is not JSON and changes nothing', async () => {
      const before = await userNames();
      for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', undefined]) {
        const headers: Record<string, string> = { authorization: `Bearer ${ADMIN_TOKEN}` };
        if (contentType) headers['content-type'] = contentType;
        const response = await app.request('/api/v1/users', {
          method: 'POST',
          headers,
          body: JSON.stringify({ name: 'eve' }),
        });
        expect(response.status).toBe(415);
        expect(await response.json()).toMatchObject({ code: 'unsupported_media_type' });
      }
      expect(await userNames()).toEqual(before);
    });

    it('authenticates before it judges the body', async () => {
      const response = await app.request('/api/v1/users', {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: 'hello',
      });
      expect(response.status).toBe(401);
    });

    it('answers 400 with details for unknown fields, bad values and bad JSON, and changes nothing', async () => {
      const before = await userNames();
      const unknownField = await call('/api/v1/users', ADMIN_TOKEN, {
        method: 'POST',
        json: { name: 'eve', role: 'admin' },
      });
      expect(unknownField.status).toBe(400);
      expect(await unknownField.json()).toEqual({
        error: 'invalid request',
        code: 'invalid_request',
        details: [{ path: 'role', message: 'unknown field' }],
      });

      const badValue = await call('/api/v1/users', ADMIN_TOKEN, {
        method: 'POST',
        json: { name: '  ', is_admin: 'yes' },
      });
      expect(badValue.status).toBe(400);
      const details = ((await badValue.json()) as { details: { path: string }[] }).details;
      expect(details.map((detail) => detail.path).sort()).toEqual(['is_admin', 'name']);

      const badJson = await app.request('/api/v1/users', {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: '{"name": ',
      });
      expect(badJson.status).toBe(400);
      expect(await badJson.json()).toMatchObject({ code: 'invalid_request' });
      expect(await userNames()).toEqual(before);
    });

    it('gives other routes the same typed parser', async () => {
      const ok = await call('/api/v1/probe/echo', ADMIN_TOKEN, {
        method: 'POST',
        json: { n: 3, tags: ['a'] },
      });
      expect(await ok.json()).toEqual({ n: 3, tags: ['a'] });
      const nested = await call('/api/v1/probe/echo', ADMIN_TOKEN, {
        method: 'POST',
        json: { n: 1.5, tags: ['a', 2] },
      });
      const body = (await nested.json()) as { details: { path: string }[] };
      expect(body.details.map((detail) => detail.path)).toEqual(['n', 'tags.1']);
      // A string where the list belongs is that one mistake, not also a list too long.
      const mistyped = await call('/api/v1/probe/echo', ADMIN_TOKEN, {
        method: 'POST',
        json: { n: 1, tags: 'abc' },
      });
      const refused = (await mistyped.json()) as { details: { path: string }[] };
      expect(refused.details.map((detail) => detail.path)).toEqual(['tags']);
    });
  });
});

describe('request guard helpers', () => {
  it.each([
    ['application/json', true],
    ['application/json; charset=utf-8', true],
    ['Application/JSON', true],
    ['application/jsonp', false],
    ['text/json', false],
    ['application/problem+json', false],
    [undefined, false],
  ])('isJsonMediaType(%s) is %s', (value, expected) => {
    expect(isJsonMediaType(value)).toBe(expected);
  });

  it('reports each unknown key at its own path', () => {
    const result = z
      .strictObject({ a: z.strictObject({ b: z.number() }) })
      .safeParse({ a: { b: 1, c: 2, d: 3 }, e: 4 });
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(inputIssues(result.error.issues)).toEqual([
      { path: 'a.c', message: 'unknown field' },
      { path: 'a.d', message: 'unknown field' },
      { path: 'e', message: 'unknown field' },
    ]);
  });
});

/**
 * `app.request()` never sends Content-Length; a real socket does, or sends
 * chunks, or neither for an empty POST. The guards must read all three right.
 */
describe('request guards over a socket', () => {
  let database: TestDatabase;
  let store: Store;
  let server: Server;
  let port: number;

  beforeEach(async () => {
    database = await freshDatabase('sqlite');
    store = await openStore(database.target, { clock: fakeClock(), ids: sequentialIds() });
    await bootstrapAccounts(store, { adminToken: ADMIN_TOKEN });
    server = createAdaptorServer({ fetch: buildApp(store).fetch }) as Server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterEach(async () => {
    await new Promise<void>((resolve) => {
      server.close(() => {
        resolve();
      });
      server.closeAllConnections();
    });
    await store.close();
    await database.dispose();
  });

  function send(
    path: string,
    headers: Record<string, string>,
    chunks: readonly string[],
  ): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          path,
          method: 'POST',
          headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...headers },
        },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          res.on('end', () => {
            resolve({ status: res.statusCode ?? 0, body });
          });
        },
      );
      req.on('error', reject);
      for (const chunk of chunks) req.write(chunk);
      req.end();
    });
  }

  const json = { 'content-type': 'application/json' };

  it('reads a body with Content-Length', async () => {
    const body = JSON.stringify({ n: 1 });
    const response = await send(
      '/api/v1/probe/echo',
      { ...json, 'content-length': String(Buffer.byteLength(body)) },
      [body],
    );
    expect(response).toEqual({ status: 200, body: body });
  });

  it('reads a chunked body, and refuses one that grows past the limit', async () => {
    const small = await send('/api/v1/probe/echo', json, ['{"n":', '2}']);
    expect(small).toEqual({ status: 200, body: '{"n":2}' });
    const big = await send('/api/v1/probe/echo', json, [
      '{"n":1,"tags":["',
      'x'.repeat(2000),
      '"]}',
    ]);
    expect(big.status).toBe(413);
  });

  it('refuses an oversized declared length without reading it', async () => {
    const response = await send(
      '/api/v1/probe/echo',
      { ...json, 'content-length': String(MAX_BODY_BYTES + 1) },
      ['x'.repeat(MAX_BODY_BYTES + 1)],
    );
    expect(response.status).toBe(413);
  });

  it('lets an empty POST through without a content type', async () => {
    const response = await send('/api/v1/auth/sign-out', { 'content-length': '0' }, []);
    // The route's own answer to a bearer, not the body guard's 415.
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toMatchObject({ code: 'not_a_browser_session' });
  });
});
