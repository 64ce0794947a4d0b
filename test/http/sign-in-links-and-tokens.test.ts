/**
 * Issue 14, REST: minting sign-in links (for oneself, an admin for another
 * user, a new user's `sign_in_url`) and personal API tokens (create, list,
 * revoke, quota, approximate last use). Every bad input answers a clear 4xx
 * and stores nothing; on SQLite and PostgreSQL.
 */
import { Hono } from 'hono';
import { OperationNodeTransformer, type KyselyPlugin, type RootOperationNode } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bootstrapAccounts } from '../../src/auth/bootstrap.js';
import { issueToken } from '../../src/auth/tokens.js';
import { registerAccountRoutes } from '../../src/http/admin-routes.js';
import { mountApiAccess, SESSION_COOKIE } from '../../src/http/auth.js';
import type { AppEnv } from '../../src/http/env.js';
import { openStore, type Store } from '../../src/store/index.js';
import {
  SIGN_IN_LINK_TTL_MS,
  SIGN_IN_LINKS_PER_USER,
  SIGN_IN_TOKEN_TTL_MS,
  TOKEN_LAST_USED_INTERVAL_MS,
} from '../../src/tunables.js';
import { MAX_TOKEN_NAME_CHARS, MAX_TOKENS_PER_USER } from '../../src/wire/index.js';
import { linkPath, openSignInLink, redeemSignIn } from '../support/browser-sign-in.js';
import { recordedAccounts } from '../support/accounts.js';
import { DRIVERS, freshDatabase, type TestDatabase } from '../support/databases.js';
import { fakeClock, sequentialIds, type FakeClock } from '../support/fakes.js';

const ADMIN_TOKEN = 'links-admin-token-0123456789';
const PUBLIC_ORIGIN = 'https://clarion.example.net';

/** Counts UPDATE statements on `api_tokens`: the writes a request adds. */
function tokenWriteCounter(): { plugin: KyselyPlugin; count: () => number } {
  let writes = 0;
  const plugin: KyselyPlugin = {
    transformQuery(args) {
      const node: RootOperationNode = args.node;
      if (node.kind === 'UpdateQueryNode' && JSON.stringify(node.table).includes('api_tokens')) {
        writes++;
      }
      return new OperationNodeTransformer().transformNode(node);
    },
    transformResult: (args) => Promise.resolve(args.result),
  };
  return { plugin, count: () => writes };
}

describe.each(DRIVERS)('sign-in links and personal tokens on %s', (driver) => {
  let database: TestDatabase;
  let store: Store;
  let clock: FakeClock;
  let app: Hono<AppEnv>;
  let adminId: string;
  let writes: ReturnType<typeof tokenWriteCounter>;

  beforeEach(async () => {
    database = await freshDatabase(driver, { migrated: true });
    clock = fakeClock();
    writes = tokenWriteCounter();
    store = await openStore(database.target, {
      clock,
      ids: sequentialIds(),
      plugins: [writes.plugin],
    });
    adminId = (await bootstrapAccounts(store, { adminToken: ADMIN_TOKEN })).admin.id;
    app = new Hono<AppEnv>();
    mountApiAccess(app, { store });
    const { accounts } = recordedAccounts(store);
    registerAccountRoutes(app, { store, accounts, linkOrigin: () => PUBLIC_ORIGIN });
  });

  afterEach(async () => {
    await store.close();
    await database.dispose();
  });

  function call(
    path: string,
    token: string,
    init: { method?: string; json?: unknown; raw?: string; headers?: Record<string, string> } = {},
  ): Promise<Response> {
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, ...init.headers };
    if (init.json !== undefined || init.raw !== undefined) {
      headers['content-type'] ??= 'application/json';
    }
    const body = init.raw ?? (init.json === undefined ? undefined : JSON.stringify(init.json));
    return Promise.resolve(app.request(path, { method: init.method ?? 'GET', headers, body }));
  }

  async function newUser(name: string): Promise<{ id: string; token: string; link: string }> {
    const response = await call('/api/v1/users', ADMIN_TOKEN, { method: 'POST', json: { name } });
    expect(response.status).toBe(201);
    const body = (await response.json()) as {
      user: { id: string };
      token: string;
      sign_in_url: string;
    };
    return { id: body.user.id, token: body.token, link: body.sign_in_url };
  }

  async function tokenRows(): Promise<number> {
    const rows = await store.db.selectFrom('api_tokens').select('id').execute();
    return rows.length;
  }

  /** Opens the link as a browser does; the app's sign-in POST's reply, or the GET's elsewhere. */
  async function redeem(url: string): Promise<Response> {
    const secret = await openSignInLink(app.request, url);
    if (secret === undefined) return app.request(linkPath(url));
    return redeemSignIn(app.request, secret, { origin: 'http://localhost' });
  }

  function signedIn(response: Response): boolean {
    return (
      response.status === 200 &&
      (response.headers.get('set-cookie') ?? '').startsWith(`${SESSION_COOKIE}=clr_`)
    );
  }

  describe('POST /api/v1/auth/sign-in-links', () => {
    it('mints a 15-minute link for the caller from the public origin, with {} or no body', async () => {
      const inits: Parameters<typeof call>[2][] = [
        { method: 'POST', json: {} },
        { method: 'POST' },
        { method: 'POST', headers: { 'content-length': '0' } },
        // A client that labels every request JSON (the README's `api` helper) sends no bytes.
        { method: 'POST', headers: { 'content-type': 'application/json' } },
      ];
      for (const init of inits) {
        const response = await call('/api/v1/auth/sign-in-links', ADMIN_TOKEN, init);
        expect(response.status).toBe(201);
        expect(response.headers.get('cache-control')).toBe('no-store');
        const body = (await response.json()) as { url: string; expires_at: string };
        expect(body.url).toMatch(
          new RegExp(`^${PUBLIC_ORIGIN.replaceAll('.', '\\.')}/auth/sign-in\\?token=clr_`),
        );
        expect(Date.parse(body.expires_at)).toBe(clock.nowMs() + SIGN_IN_LINK_TTL_MS);
      }
    });

    it('gives links that sign the caller in once, and expire after 15 minutes', async () => {
      const mint = async () => {
        const response = await call('/api/v1/auth/sign-in-links', ADMIN_TOKEN, {
          method: 'POST',
          json: {},
        });
        return ((await response.json()) as { url: string }).url;
      };
      const first = await mint();
      const second = await mint();
      // Minting the second did not revoke the first: two devices, two links.
      expect(signedIn(await redeem(first))).toBe(true);
      expect(signedIn(await redeem(second))).toBe(true);
      expect(signedIn(await redeem(first))).toBe(false);

      const late = await mint();
      clock.advance(SIGN_IN_LINK_TTL_MS);
      const expired = await redeem(late);
      expect(expired.status).toBe(303);
      expect(expired.headers.get('location')).toBe('/signed-out?reason=link_invalid');
    });

    it('survives a restart that revokes the start-up links', async () => {
      const response = await call('/api/v1/auth/sign-in-links', ADMIN_TOKEN, {
        method: 'POST',
        json: {},
      });
      const minted = ((await response.json()) as { url: string }).url;
      const boot = await bootstrapAccounts(store, { adminToken: ADMIN_TOKEN });
      const again = await bootstrapAccounts(store, { adminToken: ADMIN_TOKEN });
      expect(signedIn(await redeem(`/auth/sign-in?token=${boot.signInSecret}`))).toBe(false);
      expect(signedIn(await redeem(`/auth/sign-in?token=${again.signInSecret}`))).toBe(true);
      expect(signedIn(await redeem(minted))).toBe(true);
    });

    it('lets an admin mint a link for another user, who is then signed in as themselves', async () => {
      const bob = await newUser('bob');
      const response = await call('/api/v1/auth/sign-in-links', ADMIN_TOKEN, {
        method: 'POST',
        json: { user_id: bob.id },
      });
      expect(response.status).toBe(201);
      const signIn = await redeem(((await response.json()) as { url: string }).url);
      expect(signedIn(signIn)).toBe(true);
      const cookie = /^clarion_session=([^;]+)/.exec(signIn.headers.get('set-cookie') ?? '')?.[1];
      const me = await app.request('/api/v1/me', {
        headers: { cookie: `${SESSION_COOKIE}=${cookie ?? ''}` },
      });
      expect(((await me.json()) as { user: { id: string } }).user.id).toBe(bob.id);
    });

    it(`holds at most ${SIGN_IN_LINKS_PER_USER} live links per user; one more is 429 and stores nothing`, async () => {
      const bob = await newUser('bob');
      const mint = () =>
        call('/api/v1/auth/sign-in-links', bob.token, { method: 'POST', json: {} });
      // Bob's new-user link is live too.
      for (let i = 1; i < SIGN_IN_LINKS_PER_USER; i++) expect((await mint()).status).toBe(201);
      const before = await tokenRows();
      const refused = await mint();
      expect(refused.status).toBe(429);
      expect(await refused.json()).toMatchObject({ code: 'quota_exceeded' });
      expect(await tokenRows()).toBe(before);
      // Minted links expire; then there is room again.
      clock.advance(SIGN_IN_LINK_TTL_MS);
      expect((await mint()).status).toBe(201);
    });

    it('refuses bad requests with a clear 4xx and stores nothing', async () => {
      const bob = await newUser('bob');
      const carol = await newUser('carol');
      const agent = await issueToken(store, {
        kind: 'agent',
        userId: adminId,
        sessionId: 'some-session',
      });
      const before = await tokenRows();
      const cases: [string, Parameters<typeof call>[2], number, string][] = [
        [bob.token, { method: 'POST', json: { user_id: carol.id } }, 403, 'forbidden'],
        [bob.token, { method: 'POST', json: { user_id: 'no-such-user' } }, 403, 'forbidden'],
        [ADMIN_TOKEN, { method: 'POST', json: { user_id: 'no-such-user' } }, 404, 'not_found'],
        [ADMIN_TOKEN, { method: 'POST', json: { user_id: '' } }, 400, 'invalid_request'],
        [ADMIN_TOKEN, { method: 'POST', json: { user: adminId } }, 400, 'invalid_request'],
        [ADMIN_TOKEN, { method: 'POST', json: { user_id: 7 } }, 400, 'invalid_request'],
        [ADMIN_TOKEN, { method: 'POST', raw: '{' }, 400, 'invalid_request'],
        [ADMIN_TOKEN, { method: 'POST', json: [] }, 400, 'invalid_request'],
        [
          ADMIN_TOKEN,
          { method: 'POST', raw: 'user_id=x', headers: { 'content-type': 'text/plain' } },
          415,
          'unsupported_media_type',
        ],
        [agent.secret, { method: 'POST', json: {} }, 403, 'person_required'],
        ['clr_not-a-token', { method: 'POST', json: {} }, 401, 'unauthorized'],
      ];
      for (const [token, init, status, code] of cases) {
        const response = await call('/api/v1/auth/sign-in-links', token, init);
        expect({ init, status: response.status }).toEqual({ init, status });
        expect(((await response.json()) as { code: string }).code).toBe(code);
      }
      expect(await tokenRows()).toBe(before);
    });
  });

  describe('POST /api/v1/users', () => {
    it('returns a sign_in_url that signs the new user in', async () => {
      const bob = await newUser('bob');
      expect(bob.link.startsWith(`${PUBLIC_ORIGIN}/auth/sign-in?token=clr_`)).toBe(true);
      expect(signedIn(await redeem(bob.link))).toBe(true);
    });

    it('says when the new user’s link stops working: a day on, as a start-up link', async () => {
      const response = await call('/api/v1/users', ADMIN_TOKEN, {
        method: 'POST',
        json: { name: 'erin' },
      });
      const body = (await response.json()) as { sign_in_url: string; sign_in_expires_at: string };
      expect(Date.parse(body.sign_in_expires_at) - clock.nowMs()).toBe(SIGN_IN_TOKEN_TTL_MS);
      clock.advance(SIGN_IN_TOKEN_TTL_MS + 1);
      expect(signedIn(await redeem(body.sign_in_url))).toBe(false);
    });
  });

  describe('personal tokens', () => {
    interface Listed {
      id: string;
      name: string;
      kind: 'user' | 'agent';
      created_at: string;
      last_used_at: string | null;
    }

    async function create(token: string, name: string): Promise<{ token: Listed; secret: string }> {
      const response = await call('/api/v1/tokens', token, { method: 'POST', json: { name } });
      expect(response.status).toBe(201);
      expect(response.headers.get('cache-control')).toBe('no-store');
      return (await response.json()) as { token: Listed; secret: string };
    }

    async function list(token: string): Promise<Listed[]> {
      const response = await call('/api/v1/tokens', token);
      expect(response.status).toBe(200);
      return ((await response.json()) as { tokens: Listed[] }).tokens;
    }

    it('creates a token whose secret works, lists it without secrets, and revokes it at once', async () => {
      const bob = await newUser('bob');
      const made = await create(bob.token, 'Claude Code');
      expect(made.secret).toMatch(/^clr_/);
      expect(made.token).toEqual({
        id: expect.any(String) as string,
        name: 'Claude Code',
        kind: 'user',
        created_at: expect.any(String) as string,
        last_used_at: null,
      });
      const me = await call('/api/v1/me', made.secret);
      expect(((await me.json()) as { user: { id: string } }).user.id).toBe(bob.id);

      const listing = await call('/api/v1/tokens', bob.token);
      const text = await listing.text();
      expect(text).not.toContain(made.secret);
      expect(text).not.toContain('hash');
      const names = (JSON.parse(text) as { tokens: Listed[] }).tokens.map((token) => token.name);
      expect(names).toEqual(['First token', 'Claude Code']);
      // The admin's list holds only the admin's own user tokens.
      expect(await list(ADMIN_TOKEN)).toEqual([]);

      const revoked = await call(`/api/v1/tokens/${made.token.id}`, bob.token, {
        method: 'DELETE',
      });
      expect(revoked.status).toBe(204);
      expect((await call('/api/v1/me', made.secret)).status).toBe(401);
      expect((await list(bob.token)).map((token) => token.name)).toEqual(['First token']);
    });

    it('makes an agent token that is listed and revoked as the person’s, and reaches no REST route', async () => {
      const bob = await newUser('bob');
      const response = await call('/api/v1/tokens', bob.token, {
        method: 'POST',
        json: { name: 'Claude Code', kind: 'agent' },
      });
      expect(response.status).toBe(201);
      const made = (await response.json()) as { token: Listed; secret: string };
      expect(made.token).toMatchObject({ name: 'Claude Code', kind: 'agent' });
      expect((await list(bob.token)).map((token) => [token.name, token.kind])).toEqual([
        ['First token', 'user'],
        ['Claude Code', 'agent'],
      ]);

      // It asks and waits through /mcp only: every REST read is forbidden, every write a person's.
      const me = await call('/api/v1/me', made.secret);
      expect(me.status).toBe(403);
      expect(((await me.json()) as { code: string }).code).toBe('forbidden');
      const minted = await call('/api/v1/tokens', made.secret, {
        method: 'POST',
        json: { name: 'escalated' },
      });
      expect(minted.status).toBe(403);
      // Said as what this token is: it reads no session either, so "read-only" would mislead.
      const refusal = (await minted.json()) as { code: string; error: string };
      expect(refusal.code).toBe('person_required');
      expect(refusal.error).toMatch(/^an external agent's token changes nothing over REST/);

      const revoked = await call(`/api/v1/tokens/${made.token.id}`, bob.token, {
        method: 'DELETE',
      });
      expect(revoked.status).toBe(204);
      expect((await call('/api/v1/me', made.secret)).status).toBe(401);
    });

    it('updates last_used_at at most once per interval, never a write per request', async () => {
      const bob = await newUser('bob');
      const made = await create(bob.token, 'script');
      const before = writes.count();
      for (let i = 0; i < 20; i++) expect((await call('/api/v1/me', made.secret)).status).toBe(200);
      expect(writes.count() - before).toBe(1);
      const first = (await list(bob.token)).find((token) => token.id === made.token.id);
      expect(first?.last_used_at).toBe(
        new Date(clock.nowMs()).toISOString().replace('Z', '000000Z'),
      );

      clock.advance(TOKEN_LAST_USED_INTERVAL_MS - 1);
      await call('/api/v1/me', made.secret);
      expect(writes.count() - before).toBe(1);
      clock.advance(1);
      await call('/api/v1/me', made.secret);
      expect(writes.count() - before).toBe(2);
      const second = (await list(bob.token)).find((token) => token.id === made.token.id);
      expect(Date.parse(second?.last_used_at ?? '')).toBe(clock.nowMs());
    });

    it(`refuses a token beyond ${MAX_TOKENS_PER_USER} live ones with 409 and stores nothing`, async () => {
      const bob = await newUser('bob');
      // Bob's first token counts: the limit is on live tokens, however they were made.
      for (let i = 1; i < MAX_TOKENS_PER_USER; i++) await create(bob.token, `t${i}`);
      const before = await tokenRows();
      const response = await call('/api/v1/tokens', bob.token, {
        method: 'POST',
        json: { name: 'one too many' },
      });
      expect(response.status).toBe(409);
      expect(await response.json()).toMatchObject({ code: 'conflict' });
      expect(await tokenRows()).toBe(before);
      // Revoking one frees a slot.
      const newest = (await list(bob.token)).at(-1);
      await call(`/api/v1/tokens/${newest?.id ?? ''}`, bob.token, { method: 'DELETE' });
      await create(bob.token, 'room again');
    });

    it('refuses bad input, another user’s token and agents with a clear 4xx, storing nothing', async () => {
      const bob = await newUser('bob');
      const carol = await newUser('carol');
      const carols = await create(carol.token, 'carol’s');
      const agent = await issueToken(store, {
        kind: 'agent',
        userId: adminId,
        sessionId: 'some-session',
      });
      const before = await tokenRows();
      const bad: [string, Parameters<typeof call>[2], number, string][] = [
        [bob.token, { method: 'POST', json: {} }, 400, 'invalid_request'],
        [bob.token, { method: 'POST', json: { name: '' } }, 400, 'invalid_request'],
        [bob.token, { method: 'POST', json: { name: '   ' } }, 400, 'invalid_request'],
        [
          bob.token,
          { method: 'POST', json: { name: 'x'.repeat(MAX_TOKEN_NAME_CHARS + 1) } },
          400,
          'invalid_request',
        ],
        [bob.token, { method: 'POST', json: { name: 42 } }, 400, 'invalid_request'],
        [bob.token, { method: 'POST', json: { name: 'a', kind: 'admin' } }, 400, 'invalid_request'],
        [bob.token, { method: 'POST', json: { name: 'a', scope: 'all' } }, 400, 'invalid_request'],
        [bob.token, { method: 'POST', json: { name: 'a\u0000b' } }, 400, 'invalid_text'],
        [bob.token, { method: 'POST' }, 415, 'unsupported_media_type'],
        [agent.secret, { method: 'POST', json: { name: 'agent' } }, 403, 'person_required'],
      ];
      for (const [token, init, status, code] of bad) {
        const response = await call('/api/v1/tokens', token, init);
        expect({ init, status: response.status }).toEqual({ init, status });
        expect(((await response.json()) as { code: string }).code).toBe(code);
      }
      const listByAgent = await call('/api/v1/tokens', agent.secret);
      expect(listByAgent.status).toBe(403);

      for (const [token, id, status] of [
        [bob.token, carols.token.id, 404],
        [ADMIN_TOKEN, carols.token.id, 404],
        [bob.token, 'no-such-token', 404],
        [bob.token, '%00', 404],
        [agent.secret, carols.token.id, 403],
      ] as const) {
        const response = await call(`/api/v1/tokens/${id}`, token, { method: 'DELETE' });
        expect({ id, status: response.status }).toEqual({ id, status });
      }
      expect(await tokenRows()).toBe(before);
      expect((await call('/api/v1/me', carols.secret)).status).toBe(200);
    });
  });
});
