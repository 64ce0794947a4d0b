import { Hono } from 'hono';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bootstrapAccounts } from '../../src/auth/bootstrap.js';
import { issueToken, SIGN_IN_TOKEN_TTL_MS } from '../../src/auth/tokens.js';
import { registerAccountRoutes } from '../../src/http/admin-routes.js';
import {
  createPrincipalResolver,
  LINK_INVALID_LOCATION,
  mountApiAccess,
  resolvePrincipal,
  SESSION_COOKIE,
} from '../../src/http/auth.js';
import type { AppEnv } from '../../src/http/env.js';
import { listMemberWorkspaces, openStore, type Store } from '../../src/store/index.js';
import { DRIVERS, freshDatabase, type TestDatabase } from '../support/databases.js';
import { fakeClock, sequentialIds, type FakeClock } from '../support/fakes.js';

const ORIGIN = 'http://localhost';

describe.each(DRIVERS)('browser sign-in on %s', (driver) => {
  let database: TestDatabase;
  let store: Store;
  let clock: FakeClock;
  let app: Hono<AppEnv>;
  let adminId: string;
  let link: string;

  beforeEach(async () => {
    database = await freshDatabase(driver, { migrated: true });
    clock = fakeClock();
    store = await openStore(database.target, { clock, ids: sequentialIds() });
    const boot = await bootstrapAccounts(store);
    adminId = boot.admin.id;
    link = `/auth/sign-in?token=${boot.signInSecret}`;
    app = new Hono<AppEnv>();
    mountApiAccess(app, { store });
    registerAccountRoutes(app, { store });
  });

  afterEach(async () => {
    await store.close();
    await database.dispose();
  });

  async function signIn(): Promise<string> {
    const response = await app.request(link);
    expect(response.status).toBe(303);
    return cookieValue(response);
  }

  function withCookie(
    cookie: string,
    init: RequestInit = {},
    headers: Record<string, string> = {},
  ) {
    return { ...init, headers: { cookie: `${SESSION_COOKIE}=${cookie}`, ...headers } };
  }

  function createWorkspace(cookie: string, headers: Record<string, string>) {
    return app.request(
      '/api/v1/workspaces',
      withCookie(
        cookie,
        { method: 'POST', body: JSON.stringify({ name: 'team' }) },
        { 'content-type': 'application/json', ...headers },
      ),
    );
  }

  async function workspaceNames(): Promise<string[]> {
    return (await listMemberWorkspaces(store, adminId)).map((workspace) => workspace.name);
  }

  it('sets an HttpOnly, SameSite=Strict session cookie and redirects home', async () => {
    const response = await app.request(link);
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const setCookie = response.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(new RegExp(`^${SESSION_COOKIE}=clr_`));
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Strict');
    expect(setCookie).toContain('Path=/');
    expect(setCookie).not.toContain('Secure');
  });

  it('marks the cookie Secure on https', async () => {
    const response = await app.request(`https://clarion.example${link}`);
    expect(response.headers.get('set-cookie')).toContain('Secure');
  });

  it('authenticates GET /api/v1/me with the cookie', async () => {
    const cookie = await signIn();
    const response = await app.request('/api/v1/me', withCookie(cookie));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      user: { id: adminId, name: 'admin', is_admin: true },
      kind: 'user',
    });
  });

  it('redeems a link only once; a second use goes to the page saying how to get a new link', async () => {
    await signIn();
    const again = await app.request(link);
    expect(again.status).toBe(303);
    expect(again.headers.get('location')).toBe(LINK_INVALID_LOCATION);
    expect(again.headers.get('location')).not.toContain(link.split('=')[1]);
    expect(again.headers.get('cache-control')).toBe('no-store');
    expect(again.headers.get('referrer-policy')).toBe('no-referrer');
    expect(again.headers.get('set-cookie')).toBeNull();
  });

  it('does not spend the link on HEAD', async () => {
    const head = await app.request(link, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('set-cookie')).toBeNull();
    expect((await app.request(link)).status).toBe(303);
  });

  it('lets exactly one of two concurrent redemptions through', async () => {
    const responses = await Promise.all([app.request(link), app.request(link)]);
    expect(responses.map((response) => response.headers.get('location')).sort()).toEqual([
      '/',
      LINK_INVALID_LOCATION,
    ]);
    expect(responses.filter((response) => response.headers.has('set-cookie'))).toHaveLength(1);
  });

  it('refuses an expired, unknown or missing link the same way', async () => {
    clock.advance(SIGN_IN_TOKEN_TTL_MS);
    const responses = await Promise.all([
      app.request(link),
      app.request('/auth/sign-in?token=clr_unknown'),
      app.request('/auth/sign-in'),
    ]);
    expect(responses.map((response) => response.status)).toEqual([303, 303, 303]);
    expect(responses.map((response) => response.headers.get('location'))).toEqual([
      LINK_INVALID_LOCATION,
      LINK_INVALID_LOCATION,
      LINK_INVALID_LOCATION,
    ]);
    expect(responses.every((response) => !response.headers.has('set-cookie'))).toBe(true);
  });

  it('refuses a cookie POST from a foreign origin and changes nothing', async () => {
    const cookie = await signIn();
    const before = await workspaceNames();
    const attempts: Record<string, string>[] = [
      { origin: 'http://evil.example' },
      { origin: 'null' },
      { 'sec-fetch-site': 'cross-site' },
      {},
    ];
    for (const headers of attempts) {
      const response = await createWorkspace(cookie, headers);
      expect(response.status).toBe(403);
      expect(await response.json()).toMatchObject({ code: 'forbidden' });
    }
    expect(await workspaceNames()).toEqual(before);
  });

  it('accepts the same cookie POST from its own origin', async () => {
    const cookie = await signIn();
    expect((await createWorkspace(cookie, { origin: ORIGIN })).status).toBe(201);
    expect((await createWorkspace(cookie, { 'sec-fetch-site': 'same-origin' })).status).toBe(201);
    expect(await workspaceNames()).toEqual(['Default', 'team', 'team']);
  });

  it('signs out: the cookie is cleared and no longer authenticates', async () => {
    const cookie = await signIn();
    const foreign = await app.request(
      '/api/v1/auth/sign-out',
      withCookie(cookie, { method: 'POST' }, { origin: 'http://evil.example' }),
    );
    expect(foreign.status).toBe(403);
    expect((await app.request('/api/v1/me', withCookie(cookie))).status).toBe(200);

    const response = await app.request(
      '/api/v1/auth/sign-out',
      withCookie(cookie, { method: 'POST' }, { origin: ORIGIN }),
    );
    expect(response.status).toBe(204);
    expect(response.headers.get('set-cookie')).toMatch(
      new RegExp(`^${SESSION_COOKIE}=;.*Max-Age=0`),
    );
    expect((await app.request('/api/v1/me', withCookie(cookie))).status).toBe(401);
  });

  it('applies the origin rule to WebSocket upgrades that use the cookie', async () => {
    const cookie = await signIn();
    const resolve = createPrincipalResolver({ store });
    const upgrade = (headers: Record<string, string>) =>
      new Request(`${ORIGIN}/api/v1/events`, { headers: { upgrade: 'websocket', ...headers } });
    const withSession = { cookie: `${SESSION_COOKIE}=${cookie}` };
    const admin = { kind: 'user', userId: adminId, name: 'admin', isAdmin: true };

    expect(await resolve(upgrade({ ...withSession, origin: ORIGIN }))).toEqual(admin);
    expect(
      await resolve(upgrade({ ...withSession, origin: 'http://evil.example' })),
    ).toBeUndefined();
    expect(await resolve(upgrade(withSession))).toBeUndefined();
    expect(await resolve(upgrade({}))).toBeUndefined();
    // A plain GET with the cookie needs no origin: SameSite=Strict already keeps other sites out.
    expect(
      await resolvePrincipal(store, new Request(`${ORIGIN}/api/v1/me`, { headers: withSession })),
    ).toEqual(admin);
  });

  it('accepts a bearer token on a WebSocket upgrade from anywhere', async () => {
    const { secret } = await issueToken(store, { kind: 'user', userId: adminId });
    const request = new Request(`${ORIGIN}/api/v1/events`, {
      headers: {
        upgrade: 'websocket',
        authorization: `Bearer ${secret}`,
        origin: 'http://x.example',
      },
    });
    expect(await resolvePrincipal(store, request)).toMatchObject({ userId: adminId });
  });
});

function cookieValue(response: Response): string {
  const match = new RegExp(`^${SESSION_COOKIE}=([^;]+)`).exec(
    response.headers.get('set-cookie') ?? '',
  );
  if (!match?.[1]) throw new Error('no session cookie');
  return match[1];
}
