import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  addMember,
  createOwnedWorkspace,
  deleteUser,
  inviteUser,
  removeMember,
  renameWorkspace,
} from '../../src/auth/accounts.js';
import {
  BOOTSTRAP_ADMIN_NAME,
  BOOTSTRAP_WORKSPACE_NAME,
  BootstrapError,
  bootstrapAccounts,
} from '../../src/auth/bootstrap.js';
import { signInLinkFor } from '../../src/auth/sign-in-links.js';
import { revokeConsentRule } from '../../src/turns/consent-rules.js';
import {
  BROWSER_SESSION_TTL_MS,
  SIGN_IN_TOKEN_TTL_MS,
  hashSecret,
  issueToken,
  redeemSignIn,
  resolveToken,
  revokeBrowserSession,
} from '../../src/auth/tokens.js';
import {
  bindToken,
  createUser,
  createWorkspace,
  deleteSessionTokens,
  ensureWorkspaceMember,
  keepConsentRule,
  listConsentRules,
  listMemberWorkspaces,
  listUserTokens,
  listUsers,
  listWorkspaceMembers,
  memberWorkspaceIds,
  openStore,
  redeemToken,
  removeWorkspaceMember,
  type Store,
} from '../../src/store/index.js';
import { DRIVERS, freshDatabase, type TestDatabase } from '../support/databases.js';
import { fakeClock, sequentialIds, type FakeClock } from '../support/fakes.js';
import { seedSession } from '../support/seed.js';

const ADMIN_TOKEN = 'an-admin-token-of-enough-length';

describe.each(DRIVERS)('accounts and tokens on %s', (driver) => {
  let database: TestDatabase;
  let store: Store;
  let clock: FakeClock;

  beforeEach(async () => {
    database = await freshDatabase(driver, { migrated: true });
    clock = fakeClock();
    store = await openStore(database.target, { clock, ids: sequentialIds() });
  });

  afterEach(async () => {
    await store.close();
    await database.dispose();
  });

  describe('tokens', () => {
    it('stores only the hash and resolves a user token on the bearer channel only', async () => {
      const user = await createUser(store, { name: 'ada', isAdmin: true });
      const { secret, record } = await issueToken(store, { kind: 'user', userId: user.id });

      expect(secret).toMatch(/^clr_[A-Za-z0-9_-]{43}$/);
      expect(record.token_hash).toBe(hashSecret(secret));
      const rows = await listUserTokens(store, user.id);
      expect(rows.map((row) => row.token_hash)).toEqual([hashSecret(secret)]);
      expect(JSON.stringify(rows)).not.toContain(secret);

      expect(await resolveToken(store, secret, 'bearer')).toEqual({
        kind: 'user',
        userId: user.id,
        name: user.name,
        isAdmin: true,
      });
      expect(await resolveToken(store, secret, 'cookie')).toBeUndefined();
      expect(await resolveToken(store, `${secret}x`, 'bearer')).toBeUndefined();
      expect(await resolveToken(store, '', 'bearer')).toBeUndefined();
    });

    it('binds an agent token to its session', async () => {
      const user = await createUser(store, { name: 'ada' });
      const { session } = await seedSession(store);
      const { secret } = await issueToken(store, {
        kind: 'agent',
        userId: user.id,
        sessionId: session.id,
      });
      expect(await resolveToken(store, secret, 'bearer')).toEqual({
        kind: 'agent',
        userId: user.id,
        sessionId: session.id,
      });

      expect(await deleteSessionTokens(store, session.id)).toBe(1);
      expect(await resolveToken(store, secret, 'bearer')).toBeUndefined();
    });

    it('deleting a user revokes every token it holds, of every kind', async () => {
      const admin = await createUser(store, { name: 'root', isAdmin: true });
      const user = await createUser(store, { name: 'ada' });
      const { session } = await seedSession(store);
      const secrets = [
        (await issueToken(store, { kind: 'user', userId: user.id })).secret,
        (await issueToken(store, { kind: 'agent', userId: user.id, sessionId: session.id })).secret,
      ];
      const browser = (await issueToken(store, { kind: 'browser', userId: user.id })).secret;
      const link = (await issueToken(store, { kind: 'sign_in', userId: user.id })).secret;
      for (const secret of secrets)
        expect(await resolveToken(store, secret, 'bearer')).toBeDefined();
      expect(await resolveToken(store, browser, 'cookie')).toBeDefined();

      const caller = { kind: 'user', userId: admin.id, name: 'admin', isAdmin: true } as const;
      expect(await deleteUser(store, caller, admin.id)).toMatchObject({ code: 'conflict' });
      // The seeded task is not ada's: no session acted for her; she shared no workspace.
      expect(await deleteUser(store, caller, user.id)).toEqual({
        ok: true,
        actedFor: [],
        coMembers: [],
      });
      expect(await deleteUser(store, caller, user.id)).toMatchObject({ code: 'not_found' });

      for (const secret of secrets)
        expect(await resolveToken(store, secret, 'bearer')).toBeUndefined();
      expect(await resolveToken(store, browser, 'cookie')).toBeUndefined();
      expect(await redeemSignIn(store, link)).toEqual({ ok: false, code: 'link_invalid' });
      expect(await listUserTokens(store, user.id)).toEqual([]);
    });

    it('accepts a browser token only on the cookie channel, until it expires or is revoked', async () => {
      const user = await createUser(store, { name: 'ada' });
      const first = await issueToken(store, { kind: 'browser', userId: user.id });
      const second = await issueToken(store, { kind: 'browser', userId: user.id });

      expect(await resolveToken(store, first.secret, 'bearer')).toBeUndefined();
      expect(await resolveToken(store, first.secret, 'cookie')).toMatchObject({ userId: user.id });

      expect(await revokeBrowserSession(store, first.secret)).toBe(true);
      expect(await revokeBrowserSession(store, first.secret)).toBe(false);
      expect(await resolveToken(store, first.secret, 'cookie')).toBeUndefined();

      clock.advance(BROWSER_SESSION_TTL_MS - 1);
      expect(await resolveToken(store, second.secret, 'cookie')).toBeDefined();
      clock.advance(1);
      expect(await resolveToken(store, second.secret, 'cookie')).toBeUndefined();
    });

    it('redeems a sign-in token exactly once, and never as a credential', async () => {
      const user = await createUser(store, { name: 'ada' });
      const { secret } = await issueToken(store, { kind: 'sign_in', userId: user.id });
      expect(await resolveToken(store, secret, 'bearer')).toBeUndefined();
      expect(await resolveToken(store, secret, 'cookie')).toBeUndefined();

      const first = await redeemSignIn(store, secret);
      expect(first).toMatchObject({ ok: true, userId: user.id });
      if (!first.ok) return;
      expect(await resolveToken(store, first.browserSecret, 'cookie')).toMatchObject({
        kind: 'user',
        userId: user.id,
      });
      expect(await redeemSignIn(store, secret)).toEqual({ ok: false, code: 'link_invalid' });
      expect(await redeemSignIn(store, 'clr_unknown')).toEqual({ ok: false, code: 'link_invalid' });
    });

    it('lets exactly one of two concurrent redemptions win', async () => {
      const user = await createUser(store, { name: 'ada' });
      for (let round = 0; round < 5; round++) {
        const { secret } = await issueToken(store, { kind: 'sign_in', userId: user.id });
        const hash = hashSecret(secret);
        const results = await Promise.all([
          store.transaction((tx) => redeemToken(tx, hash, 'sign_in')),
          store.transaction((tx) => redeemToken(tx, hash, 'sign_in')),
        ]);
        expect(results.filter((row) => row !== undefined)).toHaveLength(1);
      }
    });

    it('refuses a sign-in token after 24 hours', async () => {
      const user = await createUser(store, { name: 'ada' });
      const { secret } = await issueToken(store, { kind: 'sign_in', userId: user.id });
      clock.advance(SIGN_IN_TOKEN_TTL_MS);
      expect(await redeemSignIn(store, secret)).toEqual({ ok: false, code: 'link_invalid' });
    });

    it('binds a chosen secret once, and repairs a row that says something else', async () => {
      const ada = await createUser(store, { name: 'ada', isAdmin: true });
      const bob = await createUser(store, { name: 'bob' });
      const hash = hashSecret(ADMIN_TOKEN);

      expect(
        (await bindToken(store, { userId: ada.id, kind: 'user', tokenHash: hash })).changed,
      ).toBe(true);
      expect(
        (await bindToken(store, { userId: ada.id, kind: 'user', tokenHash: hash })).changed,
      ).toBe(false);
      expect(await listUserTokens(store, ada.id)).toHaveLength(1);

      await store.db.updateTable('api_tokens').set({ user_id: bob.id }).execute();
      const repaired = await bindToken(store, { userId: ada.id, kind: 'user', tokenHash: hash });
      expect(repaired.changed).toBe(true);
      expect(repaired.record.user_id).toBe(ada.id);
      expect(await listUserTokens(store, bob.id)).toEqual([]);
    });
  });

  describe('an admin deleted while a request of theirs runs', () => {
    // The request's credential was read before the deletion committed; what it does comes after.
    async function twoAdmins() {
      const ada = await createUser(store, { name: 'ada', isAdmin: true });
      const grace = await createUser(store, { name: 'grace', isAdmin: true });
      const asAda = { kind: 'user', userId: ada.id, name: 'ada', isAdmin: true } as const;
      const asGrace = { kind: 'user', userId: grace.id, name: 'grace', isAdmin: true } as const;
      expect(await deleteUser(store, asAda, grace.id)).toEqual({
        ok: true,
        actedFor: [],
        coMembers: [],
      });
      return { ada, grace, asGrace };
    }

    it('cannot delete the admin who deleted them, which would leave no admin', async () => {
      const { ada, asGrace } = await twoAdmins();
      expect(await deleteUser(store, asGrace, ada.id)).toMatchObject({
        ok: false,
        code: 'unauthorized',
      });
      expect((await listUsers(store)).map((user) => user.name)).toEqual(['ada']);
    });

    it('cannot mint a sign-in link for the admin who deleted them, to sign in as her', async () => {
      const { ada, asGrace } = await twoAdmins();
      const request = { userId: ada.id, origin: 'http://clarion.test' };
      expect(await signInLinkFor(store, asGrace, request)).toMatchObject({
        ok: false,
        code: 'unauthorized',
      });
      expect(await listUserTokens(store, ada.id)).toEqual([]);
    });

    it('cannot revoke the "Always allow" rule of the admin who deleted them', async () => {
      const { ada, asGrace } = await twoAdmins();
      const team = await createWorkspace(store, { name: 'team' });
      await keepConsentRule(store, {
        userId: ada.id,
        scope: { workspace_id: team.id, cwd: '/srv/app' },
        profile: 'demo',
        toolKey: 'execute',
        command: 'npm test',
        surface: 'web',
      });
      const [rule] = await listConsentRules(store, ada.id);
      expect(await revokeConsentRule(store, asGrace, 'web', rule?.id ?? '')).toMatchObject({
        ok: false,
        code: 'unauthorized',
      });
      expect((await listConsentRules(store, ada.id)).map((kept) => kept.id)).toEqual([rule?.id]);
    });

    it('cannot invite a new admin, change who belongs to a workspace, nor make or rename one', async () => {
      const { ada, asGrace } = await twoAdmins();
      const team = await createWorkspace(store, { name: 'team' });
      await ensureWorkspaceMember(store, { workspaceId: team.id, userId: ada.id, role: 'owner' });
      const bo = await createUser(store, { name: 'bo' });
      await ensureWorkspaceMember(store, { workspaceId: team.id, userId: bo.id });

      const invite = { name: 'mallory', isAdmin: true, origin: 'http://clarion.test' };
      expect(await inviteUser(store, asGrace, invite)).toMatchObject({ code: 'unauthorized' });
      const membership = { workspaceId: team.id, userId: bo.id, role: 'owner' } as const;
      expect(await addMember(store, asGrace, membership)).toMatchObject({ code: 'unauthorized' });
      expect(await removeMember(store, asGrace, team.id, bo.id)).toMatchObject({
        code: 'unauthorized',
      });

      expect(await createOwnedWorkspace(store, asGrace, 'hers')).toMatchObject({
        code: 'unauthorized',
      });
      expect(await renameWorkspace(store, asGrace, team.id, 'renamed')).toMatchObject({
        code: 'unauthorized',
      });

      expect((await listUsers(store)).map((user) => user.name)).toEqual(['ada', 'bo']);
      expect((await listMemberWorkspaces(store, ada.id)).map((w) => w.name)).toEqual(['team']);
      const members = await listWorkspaceMembers(store, team.id);
      expect(members.map((member) => [member.user_name, member.role])).toEqual([
        ['ada', 'owner'],
        ['bo', 'member'],
      ]);
    });
  });

  describe('memberships', () => {
    it('adds a member once, changes the role only when asked, and removes it', async () => {
      const user = await createUser(store, { name: 'ada' });
      const workspace = await createWorkspace(store, { name: 'w' });
      const input = { workspaceId: workspace.id, userId: user.id };

      const added = await ensureWorkspaceMember(store, input);
      expect(added).toMatchObject({ created: true, member: { role: 'member' } });
      expect(await ensureWorkspaceMember(store, input)).toEqual({
        created: false,
        member: added.member,
      });
      const promoted = await ensureWorkspaceMember(store, { ...input, role: 'owner' });
      expect(promoted).toMatchObject({ created: false, member: { role: 'owner' } });

      expect(await listMemberWorkspaces(store, user.id)).toEqual([workspace]);
      expect(await listWorkspaceMembers(store, workspace.id)).toEqual([
        { ...promoted.member, user_name: 'ada' },
      ]);
      expect(await removeWorkspaceMember(store, workspace.id, user.id)).toBe(true);
      expect(await removeWorkspaceMember(store, workspace.id, user.id)).toBe(false);
      expect(await memberWorkspaceIds(store, user.id)).toEqual([]);
    });
  });

  describe('bootstrap', () => {
    it('creates admin and Default once, binds the admin token once, and issues a fresh link each time', async () => {
      const first = await bootstrapAccounts(store, { adminToken: ADMIN_TOKEN });
      const second = await bootstrapAccounts(store, { adminToken: ADMIN_TOKEN });

      expect(first).toMatchObject({ createdAdmin: true, adminTokenChanged: true });
      expect(second).toMatchObject({ createdAdmin: false, adminTokenChanged: false });
      expect(second.admin).toEqual(first.admin);
      expect(first.admin).toMatchObject({ name: BOOTSTRAP_ADMIN_NAME, is_admin: 1 });

      expect(await listUsers(store)).toEqual([first.admin]);
      const workspaces = await listMemberWorkspaces(store, first.admin.id);
      expect(workspaces.map((workspace) => workspace.name)).toEqual([BOOTSTRAP_WORKSPACE_NAME]);
      const adminRows = await store.db
        .selectFrom('api_tokens')
        .selectAll()
        .where('token_hash', '=', hashSecret(ADMIN_TOKEN))
        .execute();
      expect(adminRows).toHaveLength(1);
      expect(await resolveToken(store, ADMIN_TOKEN, 'bearer')).toEqual({
        kind: 'user',
        userId: first.admin.id,
        name: 'admin',
        isAdmin: true,
      });

      expect(second.signInSecret).not.toBe(first.signInSecret);
      expect(await redeemSignIn(store, second.signInSecret)).toMatchObject({ ok: true });
    });

    it('works without an admin token and removes spent links on the next start', async () => {
      const first = await bootstrapAccounts(store);
      expect(await redeemSignIn(store, first.signInSecret)).toMatchObject({ ok: true });
      await bootstrapAccounts(store);
      const signIns = await store.db
        .selectFrom('api_tokens')
        .select('used_at')
        .where('kind', '=', 'sign_in')
        .execute();
      expect(signIns).toEqual([{ used_at: null }]);
      expect(await listUserTokens(store, first.admin.id)).toHaveLength(2);
    });

    it('revokes the old admin token when CLARION_ADMIN_TOKEN is rotated or unset', async () => {
      const rotated = `${ADMIN_TOKEN}-rotated`;
      const first = await bootstrapAccounts(store, { adminToken: ADMIN_TOKEN });
      const second = await bootstrapAccounts(store, { adminToken: rotated });
      expect(second.adminTokenChanged).toBe(true);
      expect(await resolveToken(store, ADMIN_TOKEN, 'bearer')).toBeUndefined();
      expect(await resolveToken(store, rotated, 'bearer')).toEqual({
        kind: 'user',
        userId: first.admin.id,
        name: 'admin',
        isAdmin: true,
      });

      await bootstrapAccounts(store);
      expect(await resolveToken(store, rotated, 'bearer')).toBeUndefined();
    });

    it('leaves tokens it did not preset alone when the admin token rotates', async () => {
      const first = await bootstrapAccounts(store, { adminToken: ADMIN_TOKEN });
      const own = await issueToken(store, { kind: 'user', userId: first.admin.id });
      await bootstrapAccounts(store, { adminToken: `${ADMIN_TOKEN}-rotated` });
      expect(await resolveToken(store, own.secret, 'bearer')).toMatchObject({ kind: 'user' });
    });

    it("refuses an earlier start's unused sign-in link and an earlier run's agent tokens", async () => {
      const first = await bootstrapAccounts(store);
      const { session } = await seedSession(store);
      const agent = await issueToken(store, {
        kind: 'agent',
        userId: first.admin.id,
        sessionId: session.id,
      });
      expect(await resolveToken(store, agent.secret, 'bearer')).toMatchObject({ kind: 'agent' });

      const second = await bootstrapAccounts(store);
      expect(await redeemSignIn(store, first.signInSecret)).toEqual({
        ok: false,
        code: 'link_invalid',
      });
      expect(await resolveToken(store, agent.secret, 'bearer')).toBeUndefined();
      expect(await redeemSignIn(store, second.signInSecret)).toMatchObject({ ok: true });
    });

    it('refuses a short admin token before touching the database', async () => {
      await expect(bootstrapAccounts(store, { adminToken: 'short' })).rejects.toBeInstanceOf(
        BootstrapError,
      );
      expect(await listUsers(store)).toEqual([]);
    });
  });
});
