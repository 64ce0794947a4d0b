/**
 * Accounts over REST: who am I, users, workspaces and their members. Creating
 * users and workspaces and changing membership is for admins; agents reach
 * none of these routes but `/me`. A workspace the caller may not see answers
 * 404, the same as one that does not exist. Membership is what grants task
 * access (`store/access.ts`); nothing here decides access to tasks itself.
 */
import type { Context, Hono } from 'hono';
import {
  newMemberBody,
  newUserBody,
  newWorkspaceBody,
  type MemberView,
  type UserView,
  type WorkspaceView,
} from '../wire/index.js';
import type { Principal } from '../auth/principal.js';
import { issueToken } from '../auth/tokens.js';
import {
  createUser,
  createWorkspace,
  ensureWorkspaceMember,
  getUser,
  getWorkspace,
  getWorkspaceMember,
  listMemberWorkspaces,
  listUsers,
  listWorkspaceMembers,
  removeWorkspaceMember,
  type MemberRecord,
  type UserRecord,
  type WorkspaceRecord,
} from '../store/accounts.js';
import type { Store } from '../store/open.js';
import { principalOf, registerSessionRoutes } from './auth.js';
import type { AppEnv } from './env.js';
import { errorResponse } from './errors.js';
import { parseJsonBody } from './request-guards.js';

export interface AccountRouteDeps {
  readonly store: Store;
  /** Marks the session cookie `Secure` even on plain-HTTP requests, behind a TLS proxy. */
  readonly secureCookies?: boolean;
}

type UserPrincipal = Extract<Principal, { kind: 'user' }>;
type Gate = { ok: true; principal: UserPrincipal } | { ok: false; response: Response };

/** A person, not an agent; with `admin`, an admin person. */
function gate(c: Context<AppEnv>, admin: boolean): Gate {
  const principal = principalOf(c);
  if (!principal) return { ok: false, response: errorResponse(c, 'unauthorized') };
  if (principal.kind !== 'user' || (admin && !principal.isAdmin)) {
    return { ok: false, response: errorResponse(c, 'forbidden') };
  }
  return { ok: true, principal };
}

/**
 * Registers the session routes (sign-in, sign-out) and the account routes.
 * The auth middleware and request guards must already be mounted on
 * `/api/v1/*`.
 */
export function registerAccountRoutes(app: Hono<AppEnv>, deps: AccountRouteDeps): void {
  const { store } = deps;
  registerSessionRoutes(app, deps);

  app.get('/api/v1/me', async (c) => {
    const principal = principalOf(c);
    if (!principal) return errorResponse(c, 'unauthorized');
    const user = await getUser(store, principal.userId);
    if (!user) return errorResponse(c, 'unauthorized');
    const body = { user: { id: user.id, name: user.name, is_admin: user.is_admin === 1 } };
    return principal.kind === 'agent'
      ? c.json({ ...body, kind: principal.kind, session: { id: principal.sessionId } })
      : c.json({ ...body, kind: principal.kind });
  });

  app.post('/api/v1/users', async (c) => {
    const allowed = gate(c, true);
    if (!allowed.ok) return allowed.response;
    const body = await parseJsonBody(c, newUserBody);
    if (!body.ok) return body.response;
    const created = await store.transaction(async (tx) => {
      const user = await createUser(tx, { name: body.value.name, isAdmin: body.value.is_admin });
      const token = await issueToken(tx, { kind: 'user', userId: user.id });
      return { user, token: token.secret };
    });
    // The body holds a secret shown only this once; no cache may keep it.
    c.header('Cache-Control', 'no-store');
    return c.json({ user: userWire(created.user), token: created.token }, 201);
  });

  app.get('/api/v1/users', async (c) => {
    const allowed = gate(c, true);
    if (!allowed.ok) return allowed.response;
    const users = await listUsers(store);
    return c.json({ users: users.map(userWire) });
  });

  app.post('/api/v1/workspaces', async (c) => {
    const allowed = gate(c, true);
    if (!allowed.ok) return allowed.response;
    const body = await parseJsonBody(c, newWorkspaceBody);
    if (!body.ok) return body.response;
    const workspace = await store.transaction(async (tx) => {
      const row = await createWorkspace(tx, { name: body.value.name });
      await ensureWorkspaceMember(tx, {
        workspaceId: row.id,
        userId: allowed.principal.userId,
        role: 'owner',
      });
      return row;
    });
    return c.json({ workspace: workspaceWire(workspace) }, 201);
  });

  app.get('/api/v1/workspaces', async (c) => {
    const allowed = gate(c, false);
    if (!allowed.ok) return allowed.response;
    const workspaces = await listMemberWorkspaces(store, allowed.principal.userId);
    return c.json({ workspaces: workspaces.map(workspaceWire) });
  });

  app.post('/api/v1/workspaces/:id/members', async (c) => {
    const allowed = gate(c, true);
    if (!allowed.ok) return allowed.response;
    const body = await parseJsonBody(c, newMemberBody);
    if (!body.ok) return body.response;
    const workspaceId = c.req.param('id');
    const result = await store.transaction(async (tx) => {
      if (!(await getWorkspace(tx, workspaceId))) return 'workspace_not_found' as const;
      if (!(await getUser(tx, body.value.user_id))) return 'user_not_found' as const;
      return ensureWorkspaceMember(tx, {
        workspaceId,
        userId: body.value.user_id,
        role: body.value.role,
      });
    });
    if (result === 'workspace_not_found') return errorResponse(c, 'not_found', 'unknown workspace');
    if (result === 'user_not_found') return errorResponse(c, 'not_found', 'unknown user');
    // A repeated call finds the membership in place: 200, same body.
    return c.json({ member: memberWire(result.member) }, result.created ? 201 : 200);
  });

  app.get('/api/v1/workspaces/:id/members', async (c) => {
    const allowed = gate(c, false);
    if (!allowed.ok) return allowed.response;
    const workspaceId = c.req.param('id');
    const visible =
      (await getWorkspace(store, workspaceId)) !== undefined &&
      (allowed.principal.isAdmin ||
        (await getWorkspaceMember(store, workspaceId, allowed.principal.userId)) !== undefined);
    if (!visible) return errorResponse(c, 'not_found', 'unknown workspace');
    const members = await listWorkspaceMembers(store, workspaceId);
    return c.json({
      members: members.map((member) => ({ ...memberWire(member), user_name: member.user_name })),
    });
  });

  app.delete('/api/v1/workspaces/:id/members/:userId', async (c) => {
    const allowed = gate(c, true);
    if (!allowed.ok) return allowed.response;
    const removed = await removeWorkspaceMember(store, c.req.param('id'), c.req.param('userId'));
    if (!removed) return errorResponse(c, 'not_found', 'unknown membership');
    return c.body(null, 204);
  });
}

function userWire(user: UserRecord): UserView {
  return {
    id: user.id,
    name: user.name,
    is_admin: user.is_admin === 1,
    created_at: user.created_at,
  };
}

function workspaceWire(workspace: WorkspaceRecord): WorkspaceView {
  return { id: workspace.id, name: workspace.name, created_at: workspace.created_at };
}

function memberWire(member: MemberRecord): MemberView {
  return {
    workspace_id: member.workspace_id,
    user_id: member.user_id,
    role: member.role === 'owner' ? 'owner' : 'member',
    created_at: member.created_at,
  };
}
