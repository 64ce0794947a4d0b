/**
 * Renaming a workspace and an admin's list of every workspace, over REST on
 * both engines: who may do each, and that every refusal changes nothing.
 */
import { Hono } from 'hono';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bootstrapAccounts } from '../../src/auth/bootstrap.js';
import { registerAccountRoutes } from '../../src/http/admin-routes.js';
import { mountApiAccess } from '../../src/http/auth.js';
import type { AppEnv } from '../../src/http/env.js';
import { openStore, type Store } from '../../src/store/index.js';
import { MAX_ACCOUNT_NAME_CHARS as MAX } from '../../src/wire/limits.js';
import { recordedAccounts } from '../support/accounts.js';
import { DRIVERS, freshDatabase, type TestDatabase } from '../support/databases.js';
import { fakeClock, sequentialIds } from '../support/fakes.js';

const ADMIN_TOKEN = 'test-admin-token-0123456789';

interface Listed {
  id: string;
  name: string;
  member?: boolean;
}

describe.each(DRIVERS)('workspace admin routes on %s', (driver) => {
  let database: TestDatabase;
  let store: Store;
  let app: Hono<AppEnv>;
  let accessChanges: string[];

  beforeEach(async () => {
    database = await freshDatabase(driver, { migrated: true });
    store = await openStore(database.target, { clock: fakeClock(), ids: sequentialIds() });
    await bootstrapAccounts(store, { adminToken: ADMIN_TOKEN });
    accessChanges = [];
    app = new Hono<AppEnv>();
    mountApiAccess(app, { store, maxBodyBytes: 1024 });
    const { accounts } = recordedAccounts(store, {
      accessChanged: (id) => accessChanges.push(id),
    });
    registerAccountRoutes(app, { store, accounts });
  });

  afterEach(async () => {
    await store.close();
    await database.dispose();
  });

  function call(
    path: string,
    token: string,
    init: { method?: string; json?: unknown } = {},
  ): Promise<Response> {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (init.json !== undefined) headers['content-type'] = 'application/json';
    return Promise.resolve(
      app.request(path, {
        method: init.method ?? 'GET',
        headers,
        body: init.json === undefined ? undefined : JSON.stringify(init.json),
      }),
    );
  }

  async function newUser(name: string, isAdmin = false): Promise<{ id: string; token: string }> {
    const response = await call('/api/v1/users', ADMIN_TOKEN, {
      method: 'POST',
      json: { name, is_admin: isAdmin },
    });
    expect(response.status).toBe(201);
    const body = (await response.json()) as { user: { id: string }; token: string };
    return { id: body.user.id, token: body.token };
  }

  async function newWorkspace(token: string, name: string): Promise<string> {
    const response = await call('/api/v1/workspaces', token, { method: 'POST', json: { name } });
    expect(response.status).toBe(201);
    return ((await response.json()) as { workspace: { id: string } }).workspace.id;
  }

  async function join(workspaceId: string, userId: string, role: 'member' | 'owner') {
    const response = await call(`/api/v1/workspaces/${workspaceId}/members`, ADMIN_TOKEN, {
      method: 'POST',
      json: { user_id: userId, role },
    });
    expect(response.status).toBe(201);
  }

  async function namesSeenBy(token: string): Promise<string[]> {
    const list = (await (await call('/api/v1/workspaces', token)).json()) as {
      workspaces: Listed[];
    };
    return list.workspaces.map((workspace) => workspace.name);
  }

  function rename(workspaceId: string, token: string, json: unknown): Promise<Response> {
    return call(`/api/v1/workspaces/${workspaceId}`, token, { method: 'PATCH', json });
  }

  describe('rename', () => {
    it('lets an admin and an owner rename, and tells the members', async () => {
      const owner = await newUser('grace');
      const teamId = await newWorkspace(ADMIN_TOKEN, 'team');
      await join(teamId, owner.id, 'owner');
      accessChanges = [];

      const byAdmin = await rename(teamId, ADMIN_TOKEN, { name: 'Team A' });
      expect(byAdmin.status).toBe(200);
      expect(await byAdmin.json()).toMatchObject({ workspace: { id: teamId, name: 'Team A' } });
      expect(accessChanges.sort()).toEqual(['id-0001', owner.id].sort());

      const byOwner = await rename(teamId, owner.token, { name: 'Team B' });
      expect(byOwner.status).toBe(200);
      expect(await namesSeenBy(owner.token)).toEqual(['Team B']);
    });

    it('refuses a plain member (403), an outsider and an unknown workspace (404)', async () => {
      const member = await newUser('grace');
      const outsider = await newUser('alan');
      const teamId = await newWorkspace(ADMIN_TOKEN, 'team');
      await join(teamId, member.id, 'member');

      const byMember = await rename(teamId, member.token, { name: 'mine' });
      expect(byMember.status).toBe(403);
      expect(await byMember.json()).toMatchObject({ code: 'forbidden' });
      const byOutsider = await rename(teamId, outsider.token, { name: 'mine' });
      const unknown = await rename('nope', outsider.token, { name: 'mine' });
      expect(byOutsider.status).toBe(404);
      expect(await byOutsider.json()).toEqual(await unknown.json());
      expect((await rename('nope', ADMIN_TOKEN, { name: 'mine' })).status).toBe(404);
      expect((await rename('%00', ADMIN_TOKEN, { name: 'mine' })).status).toBe(404);
      expect(await namesSeenBy(member.token)).toEqual(['team']);
    });

    it('refuses a bad name with 400 naming the field, changing nothing', async () => {
      const teamId = await newWorkspace(ADMIN_TOKEN, 'team');
      const badNames = [{ name: '' }, { name: '  ' }, { name: 'x'.repeat(MAX + 1) }, { name: 42 }];
      for (const json of [...badNames, {}]) {
        const response = await rename(teamId, ADMIN_TOKEN, json);
        expect(response.status, JSON.stringify(json).slice(0, 40)).toBe(400);
        const body = (await response.json()) as { details: { path: string }[] };
        expect(body.details.map((issue) => issue.path)).toContain('name');
      }
      expect((await rename(teamId, ADMIN_TOKEN, { name: 'ok', extra: true })).status).toBe(400);
      expect(await namesSeenBy(ADMIN_TOKEN)).toEqual(['Default', 'team']);
    });
  });

  describe('scope=all', () => {
    it("shows an admin another admin's workspace, saying who is a member", async () => {
      const second = await newUser('ada', true);
      const theirsId = await newWorkspace(second.token, 'ada’s team');
      expect(await namesSeenBy(ADMIN_TOKEN)).toEqual(['Default']);

      const response = await call('/api/v1/workspaces?scope=all', ADMIN_TOKEN);
      expect(response.status).toBe(200);
      const { workspaces } = (await response.json()) as { workspaces: Listed[] };
      expect(workspaces.map(({ name, member }) => ({ name, member }))).toEqual([
        { name: 'Default', member: true },
        { name: 'ada’s team', member: false },
      ]);
      expect(workspaces[1]?.id).toBe(theirsId);
    });

    it('refuses a non-admin with 403 and an unknown scope with 400', async () => {
      const member = await newUser('grace');
      const refused = await call('/api/v1/workspaces?scope=all', member.token);
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({ code: 'forbidden' });
      expect((await call('/api/v1/workspaces?scope=everything', ADMIN_TOKEN)).status).toBe(400);
    });
  });
});
