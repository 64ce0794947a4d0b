import { Hono } from 'hono';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createUserWithToken } from '../../src/auth/accounts.js';
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
import { SIGN_IN_PAGE_PATH, SIGN_IN_REDEEM_PATH } from '../../src/wire/index.js';
import {
  openSignInLink,
  redeemSignIn,
  sessionCookieSet,
  type RedeemOptions,
} from '../support/browser-sign-in.js';
import { recordedAccounts } from '../support/accounts.js';
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
  let secret: string;

  beforeEach(async () => {
    database = await freshDatabase(driver, { migrated: true });
    clock = fakeClock();
    store = await openStore(database.target, { clock, ids: sequentialIds() });
    const boot = await bootstrapAccounts(store);
    adminId = boot.admin.id;
    secret = boot.signInSecret;
    link = `/auth/sign-in?token=${secret}`;
    app = new Hono<AppEnv>();
    mountApiAccess(app, { store });
    registerAccountRoutes(app, { store, accounts: recordedAccounts(store).accounts });
  });

  afterEach(async () => {
    await store.close();
    await database.dispose();
  });

  /** The web app's POST from its own origin, with whatever cookie the browser holds. */
  function redeem(token: string, options: Partial<RedeemOptions> = {}) {
    return Promise.resolve(redeemSignIn(app.request, token, { origin: ORIGIN, ...options }));
  }

  async function signIn(token = secret): Promise<string> {
    const response = await redeem(token);
    expect(response.status).toBe(200);
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

  async function whoIsSignedIn(cookie: string): Promise<string | undefined> {
    const response = await app.request('/api/v1/me', withCookie(cookie));
    if (response.status !== 200) return undefined;
    return ((await response.json()) as { user: { name: string } }).user.name;
  }

  async function workspaceNames(): Promise<string[]> {
    return (await listMemberWorkspaces(store, adminId)).map((workspace) => workspace.name);
  }

  it('opens a link without spending it: the app gets the secret in the fragment only', async () => {
    const response = await app.request(link);
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe(`${SIGN_IN_PAGE_PATH}#${secret}`);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(response.headers.get('set-cookie')).toBeNull();
    // Opened twice (a link checker's GET, then the person's), it still signs in once.
    expect(await openSignInLink(app.request, link)).toBe(secret);
    await signIn();
  });

  it('opens a link with what mail and prose add after it as the link itself', async () => {
    for (const tail of ['.', ')', '>', '%3E', '%20', '%0A', ').%0D%0A']) {
      const response = await app.request(`${link}${tail}`);
      expect(response.status, tail).toBe(303);
      expect(response.headers.get('location'), tail).toBe(`${SIGN_IN_PAGE_PATH}#${secret}`);
    }
    await signIn();
  });

  it('does not spend the link on HEAD', async () => {
    const head = await app.request(link, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('set-cookie')).toBeNull();
    expect(await openSignInLink(app.request, link)).toBe(secret);
    await signIn();
  });

  it('signs a fresh browser in at once: an HttpOnly, SameSite=Strict cookie', async () => {
    const response = await redeem(secret);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.json()).toEqual({ user: { id: adminId, name: 'admin' } });
    const setCookie = response.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(new RegExp(`^${SESSION_COOKIE}=clr_`));
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Strict');
    expect(setCookie).toContain('Path=/');
    expect(setCookie).not.toContain('Secure');
  });

  it('marks the cookie Secure on https', async () => {
    const response = await app.request(`https://clarion.example${SIGN_IN_REDEEM_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'https://clarion.example' },
      body: JSON.stringify({ token: secret }),
    });
    expect(response.status).toBe(200);
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
    expect(again.headers.get('location')).not.toContain(secret);
    expect(again.headers.get('cache-control')).toBe('no-store');
    expect(again.headers.get('referrer-policy')).toBe('no-referrer');
    expect(again.headers.get('set-cookie')).toBeNull();
    const posted = await redeem(secret);
    expect(posted.status).toBe(404);
    expect(await posted.json()).toMatchObject({ code: 'link_invalid' });
    expect(posted.headers.get('set-cookie')).toBeNull();
  });

  it('lets exactly one of two concurrent redemptions through', async () => {
    const responses = await Promise.all([redeem(secret), redeem(secret)]);
    expect(responses.map((response) => response.status).sort()).toEqual([200, 404]);
    expect(responses.filter((response) => response.headers.has('set-cookie'))).toHaveLength(1);
  });

  it('refuses an expired, unknown or missing link the same way', async () => {
    clock.advance(SIGN_IN_TOKEN_TTL_MS);
    const responses = await Promise.all([
      app.request(link),
      app.request('/auth/sign-in?token=clr_unknown'),
      app.request('/auth/sign-in'),
      app.request(`/auth/sign-in?token=clr_${'x'.repeat(600)}`),
    ]);
    expect(responses.map((response) => response.status)).toEqual([303, 303, 303, 303]);
    expect(responses.map((response) => response.headers.get('location'))).toEqual([
      LINK_INVALID_LOCATION,
      LINK_INVALID_LOCATION,
      LINK_INVALID_LOCATION,
      LINK_INVALID_LOCATION,
    ]);
    expect(responses.every((response) => !response.headers.has('set-cookie'))).toBe(true);
    for (const token of [secret, 'clr_unknown']) {
      const posted = await redeem(token);
      expect(posted.status).toBe(404);
      expect(await posted.json()).toMatchObject({ code: 'link_invalid' });
    }
  });

  it('refuses a sign-in POST from another site, with or without a cookie, and spends nothing', async () => {
    const bo = await createUserWithToken(store, { name: 'Bo', origin: ORIGIN });
    const boSecret = new URL(bo.signInUrl).searchParams.get('token') ?? '';
    const adminCookie = await signIn();
    const attempts: Record<string, string>[] = [
      { origin: 'http://evil.example' },
      { origin: 'null' },
      { 'sec-fetch-site': 'cross-site' },
      {},
    ];
    for (const cookie of [undefined, adminCookie]) {
      for (const headers of attempts) {
        const response = await app.request(SIGN_IN_REDEEM_PATH, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(cookie === undefined ? {} : { cookie: `${SESSION_COOKIE}=${cookie}` }),
            ...headers,
          },
          body: JSON.stringify({ token: boSecret, switch_account: true }),
        });
        expect(response.status).toBe(403);
        expect(await response.json()).toMatchObject({ code: 'forbidden' });
        expect(response.headers.get('set-cookie')).toBeNull();
      }
    }
    // Nothing was spent or ended: Bo's link still works, and the admin is still signed in.
    expect((await app.request('/api/v1/me', withCookie(adminCookie))).status).toBe(200);
    expect(await whoIsSignedIn(await signIn(boSecret))).toBe('Bo');
  });

  it('asks a browser signed in as another person before switching, spending nothing until then', async () => {
    const bo = await createUserWithToken(store, { name: 'Bo', origin: ORIGIN });
    const boSecret = new URL(bo.signInUrl).searchParams.get('token') ?? '';
    const adminCookie = await signIn();

    const refused = await redeem(boSecret, { cookie: adminCookie });
    expect(refused.status).toBe(409);
    expect(refused.headers.get('set-cookie')).toBeNull();
    expect(await refused.json()).toMatchObject({
      code: 'signed_in_as_other',
      details: {
        signed_in_as: { id: adminId, name: 'admin' },
        link_for: { id: bo.user.id, name: 'Bo' },
      },
    });
    // "Stay": the admin stays signed in and Bo's link is unspent (asked twice, same answer).
    expect((await redeem(boSecret, { cookie: adminCookie, switchAccount: false })).status).toBe(
      409,
    );
    expect(await whoIsSignedIn(adminCookie)).toBe('admin');

    // "Continue": this browser becomes Bo's, and its admin session ends.
    const switched = await redeem(boSecret, { cookie: adminCookie, switchAccount: true });
    expect(switched.status).toBe(200);
    expect(await switched.json()).toEqual({ user: { id: bo.user.id, name: 'Bo' } });
    expect(await whoIsSignedIn(cookieValue(switched))).toBe('Bo');
    expect((await app.request('/api/v1/me', withCookie(adminCookie))).status).toBe(401);
  });

  it('signs in at once over a session of the same person, or one that no longer works', async () => {
    const adminCookie = await signIn();
    const again = await issueToken(store, { kind: 'sign_in', userId: adminId });
    const same = await redeem(again.secret, { cookie: adminCookie });
    expect(same.status).toBe(200);
    const current = cookieValue(same);
    expect(await whoIsSignedIn(current)).toBe('admin');

    const bo = await createUserWithToken(store, { name: 'Bo', origin: ORIGIN });
    const boSecret = new URL(bo.signInUrl).searchParams.get('token') ?? '';
    const ended = await app.request(
      '/api/v1/auth/sign-out',
      withCookie(current, { method: 'POST' }, { origin: ORIGIN }),
    );
    expect(ended.status).toBe(204);
    const over = await redeem(boSecret, { cookie: current });
    expect(over.status).toBe(200);
    expect(await whoIsSignedIn(sessionCookieSet(over) ?? '')).toBe('Bo');
  });

  it('ends the session a sign-in of the same person replaces, and only that one', async () => {
    const replaced = await signIn();
    const phone = await signIn(
      (await issueToken(store, { kind: 'sign_in', userId: adminId })).secret,
    );
    const again = await issueToken(store, { kind: 'sign_in', userId: adminId });
    const same = await redeem(again.secret, { cookie: replaced });
    expect(same.status).toBe(200);
    const fresh = cookieValue(same);
    expect(fresh).not.toBe(replaced);
    expect(await whoIsSignedIn(fresh)).toBe('admin');
    // Whoever still holds the replaced cookie (a copy, a shared machine) is out; the phone is not.
    expect((await app.request('/api/v1/me', withCookie(replaced))).status).toBe(401);
    expect(await whoIsSignedIn(phone)).toBe('admin');
  });

  it('refuses a sign-in body that is not one', async () => {
    for (const body of [
      {},
      { token: '' },
      { token: secret, switch_account: 'yes' },
      { token: secret, extra: 1 },
    ]) {
      const response = await app.request(SIGN_IN_REDEEM_PATH, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: ORIGIN },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ code: 'invalid_request' });
    }
    await signIn();
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

  it('refuses a sign-out sent with a bearer token, which ends nothing, and says how to revoke it', async () => {
    const { secret: token } = await issueToken(store, { kind: 'user', userId: adminId });
    const bearer = { headers: { authorization: `Bearer ${token}` } };
    const response = await app.request('/api/v1/auth/sign-out', { method: 'POST', ...bearer });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { code: string; error: string };
    expect(body.code).toBe('not_a_browser_session');
    expect(body.error).toMatch(/browser session.*DELETE \/api\/v1\/tokens/);
    expect(response.headers.get('set-cookie')).toBeNull();
    expect((await app.request('/api/v1/me', bearer)).status).toBe(200);
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
