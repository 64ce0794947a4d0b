/**
 * Accounts over REST: who am I, users (a new one comes with a token and a
 * sign-in link), workspaces and their members. Creating
 * users and workspaces and changing membership is for admins; agents reach
 * none of these routes but `/me`. A workspace the caller may not see answers
 * 404, the same as one that does not exist. Membership is what grants task
 * access (`store/access.ts`); nothing here decides access to tasks itself.
 * The changes go through `AccountService`, which announces each itself (who
 * may see what, People pages, ended credentials): a route only parses,
 * calls and maps the result.
 */
import type { Context, Hono } from 'hono';
import {
  allUsers,
  everyWorkspaceFor,
  memberView,
  membersOf,
  userView,
  whoIs,
  workspacesOf,
  workspaceView,
  type AccountService,
  type UserPrincipal,
} from '../auth/index.js';
import type { Store } from '../store/index.js';
import {
  newMemberBody,
  newUserBody,
  newWorkspaceBody,
  renameWorkspaceBody,
  textProblem,
  unpagedListQuery,
  workspaceListQuery,
} from '../wire/index.js';
import { principalOf, registerSessionRoutes } from './auth.js';
import type { AppEnv } from './env.js';
import { errorResponse, failureResponse } from './errors.js';
import { parseJsonBody, parseQuery, storableParams } from './request-guards.js';
import { linkOriginOf, registerTokenRoutes, type TokenRouteDeps } from './token-routes.js';

export interface AccountRouteDeps extends TokenRouteDeps {
  readonly store: Store;
  /** Marks the session cookie `Secure` even on plain-HTTP requests, behind a TLS proxy. */
  readonly secureCookies?: boolean;
  /** Origins besides the request's own whose pages may sign in (`SessionRouteDeps`). */
  readonly trustedOrigins?: readonly string[];
  /** The account changes, each announced by the service once committed. */
  readonly accounts: AccountService;
}

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
 * Registers the session routes (sign-in, sign-out), the account routes and
 * the routes that mint sign-in links and personal tokens.
 * The auth middleware and request guards must already be mounted on
 * `/api/v1/*`.
 */
export function registerAccountRoutes(app: Hono<AppEnv>, deps: AccountRouteDeps): void {
  const { store, accounts } = deps;
  registerSessionRoutes(app, deps);
  registerTokenRoutes(app, deps);
  app.use('/api/v1/workspaces/:id', storableParams('unknown workspace'));
  app.use('/api/v1/workspaces/:id/*', storableParams('unknown workspace'));
  app.use('/api/v1/workspaces/:id/members/:userId/*', storableParams('unknown membership'));

  app.get('/api/v1/me', async (c) => {
    const principal = principalOf(c);
    if (!principal) return errorResponse(c, 'unauthorized');
    const user = await whoIs(store, principal);
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
    const created = await accounts.inviteUser(allowed.principal, {
      name: body.value.name,
      isAdmin: body.value.is_admin,
      origin: linkOriginOf(c, deps),
    });
    if (!created.ok) return failureResponse(c, created);
    // The body holds secrets shown only this once; no cache may keep it.
    c.header('Cache-Control', 'no-store');
    return c.json(
      {
        user: userView(created.user),
        token: created.token,
        sign_in_url: created.signInUrl,
        sign_in_expires_at: created.signInExpiresAt,
      },
      201,
    );
  });

  app.get('/api/v1/users', async (c) => {
    const allowed = gate(c, true);
    if (!allowed.ok) return allowed.response;
    const query = parseQuery(c, unpagedListQuery);
    if (!query.ok) return query.response;
    return c.json({ users: (await allUsers(store)).map(userView) });
  });

  app.delete('/api/v1/users/:id', async (c) => {
    const allowed = gate(c, true);
    if (!allowed.ok) return allowed.response;
    const id = c.req.param('id');
    // A NUL (`%00`) is no record ID and PostgreSQL refuses it as a parameter: unknown, no query.
    // Checked after the gate, so a non-admin gets 403 whatever the ID, as for the token routes.
    if (textProblem(id) !== undefined) return errorResponse(c, 'not_found', 'unknown user');
    const deleted = await accounts.deleteUser(allowed.principal, id);
    if (!deleted.ok) return failureResponse(c, deleted);
    return c.body(null, 204);
  });

  app.post('/api/v1/workspaces', async (c) => {
    const allowed = gate(c, true);
    if (!allowed.ok) return allowed.response;
    const body = await parseJsonBody(c, newWorkspaceBody);
    if (!body.ok) return body.response;
    const created = await accounts.createWorkspace(allowed.principal, body.value.name);
    if (!created.ok) return failureResponse(c, created);
    return c.json({ workspace: workspaceView(created.workspace) }, 201);
  });

  app.get('/api/v1/workspaces', async (c) => {
    const allowed = gate(c, false);
    if (!allowed.ok) return allowed.response;
    const query = parseQuery(c, workspaceListQuery);
    if (!query.ok) return query.response;
    if (query.value.scope === 'all') {
      const every = await everyWorkspaceFor(store, allowed.principal);
      if (!every.ok) return failureResponse(c, every);
      return c.json({
        workspaces: every.workspaces.map((row) => ({ ...workspaceView(row), member: row.member })),
      });
    }
    const workspaces = await workspacesOf(store, allowed.principal);
    return c.json({ workspaces: workspaces.map(workspaceView) });
  });

  app.patch('/api/v1/workspaces/:id', async (c) => {
    const allowed = gate(c, false);
    if (!allowed.ok) return allowed.response;
    const body = await parseJsonBody(c, renameWorkspaceBody);
    if (!body.ok) return body.response;
    const renamed = await accounts.renameWorkspace(
      allowed.principal,
      c.req.param('id'),
      body.value.name,
    );
    if (!renamed.ok) return failureResponse(c, renamed);
    return c.json({ workspace: workspaceView(renamed.workspace) });
  });

  app.post('/api/v1/workspaces/:id/members', async (c) => {
    const allowed = gate(c, true);
    if (!allowed.ok) return allowed.response;
    const body = await parseJsonBody(c, newMemberBody);
    if (!body.ok) return body.response;
    const result = await accounts.addMember(allowed.principal, {
      workspaceId: c.req.param('id'),
      userId: body.value.user_id,
      role: body.value.role,
    });
    if (!result.ok) return failureResponse(c, result);
    // A repeated call finds the membership in place: 200, same body.
    return c.json({ member: memberView(result.member) }, result.created ? 201 : 200);
  });

  app.get('/api/v1/workspaces/:id/members', async (c) => {
    const allowed = gate(c, false);
    if (!allowed.ok) return allowed.response;
    const query = parseQuery(c, unpagedListQuery);
    if (!query.ok) return query.response;
    const result = await membersOf(store, allowed.principal, c.req.param('id'));
    if (!result.ok) return failureResponse(c, result);
    return c.json({
      members: result.members.map((member) => ({
        ...memberView(member),
        user_name: member.user_name,
      })),
    });
  });

  app.delete('/api/v1/workspaces/:id/members/:userId', async (c) => {
    const allowed = gate(c, true);
    if (!allowed.ok) return allowed.response;
    const removed = await accounts.removeMember(
      allowed.principal,
      c.req.param('id'),
      c.req.param('userId'),
    );
    if (!removed.ok) return failureResponse(c, removed);
    return c.body(null, 204);
  });
}
