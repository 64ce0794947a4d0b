/**
 * The account changes announce themselves, whoever calls them: each
 * `AccountService` operation called directly (no route, no app) tells its
 * hook who may see what again, whose People pages and tokens read again and
 * whose credentials ended, once committed, and a refusal tells nothing. A
 * deleted person's sessions end before the rest is told, and so do a removed
 * member's in that workspace, on both engines.
 * A revoked "Always allow" rule is told the same way, by its own service.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { issueToken, redeemSignIn } from '../../src/auth/tokens.js';
import {
  createSession,
  createTask,
  createUser,
  createWorkspace,
  ensureWorkspaceMember,
  keepConsentRule,
  listConsentRules,
  openStore,
  type Store,
} from '../../src/store/index.js';
import { consentRuleService } from '../../src/turns/index.js';
import { recordedAccounts, type RecordedAccounts } from '../support/accounts.js';
import { DRIVERS, freshDatabase, type TestDatabase } from '../support/databases.js';
import { fakeClock, sequentialIds } from '../support/fakes.js';

describe.each(DRIVERS)(
  'account and credential changes announced by their service on %s',
  (driver) => {
    let database: TestDatabase;
    let store: Store;
    let service: RecordedAccounts;

    beforeEach(async () => {
      database = await freshDatabase(driver, { migrated: true });
      store = await openStore(database.target, { clock: fakeClock(), ids: sequentialIds() });
      service = recordedAccounts(store);
    });

    afterEach(async () => {
      await store.close();
      await database.dispose();
    });

    /** An admin who owns a workspace, and a person outside it. */
    async function team() {
      const ada = await createUser(store, { name: 'ada', isAdmin: true });
      const bo = await createUser(store, { name: 'bo' });
      const workspace = await createWorkspace(store, { name: 'team' });
      await ensureWorkspaceMember(store, {
        workspaceId: workspace.id,
        userId: ada.id,
        role: 'owner',
      });
      const asAda = { kind: 'user', userId: ada.id, name: 'ada', isAdmin: true } as const;
      return { ada, bo, workspace, asAda };
    }

    it('tells of a member added, their role changed and their removal, and of nothing refused', async () => {
      const { ada, bo, workspace, asAda } = await team();
      const { accounts, heard } = service;

      const added = await accounts.addMember(asAda, { workspaceId: workspace.id, userId: bo.id });
      expect(added).toMatchObject({ ok: true, created: true });
      const promoted = { workspaceId: workspace.id, userId: bo.id, role: 'owner' } as const;
      expect(await accounts.addMember(asAda, promoted)).toMatchObject({ ok: true, created: false });
      expect(await accounts.removeMember(asAda, workspace.id, bo.id)).toEqual({
        ok: true,
        actedFor: [],
      });
      const members = [ada.id, bo.id].sort();
      expect(heard.map(sortedMembers)).toEqual([
        { kind: 'access', userId: bo.id },
        { kind: 'people', subjectId: workspace.id, members },
        { kind: 'access', userId: bo.id },
        { kind: 'people', subjectId: workspace.id, members },
        { kind: 'acted_for_ended', sessionIds: [], why: 'owner_removed' },
        { kind: 'access', userId: bo.id },
        { kind: 'people', subjectId: workspace.id, members: [ada.id] },
      ]);

      heard.length = 0;
      // Its last owner stays: refused, so nobody is told anything.
      expect(await accounts.removeMember(asAda, workspace.id, ada.id)).toMatchObject({
        ok: false,
        code: 'conflict',
      });
      expect(await accounts.removeMember(asAda, workspace.id, bo.id)).toMatchObject({
        code: 'not_found',
      });
      expect(heard).toEqual([]);
    });

    it('tells of a workspace made (its owner) and renamed (every member)', async () => {
      const { ada, bo, workspace, asAda } = await team();
      await ensureWorkspaceMember(store, { workspaceId: workspace.id, userId: bo.id });
      const { accounts, heard } = service;

      const made = await accounts.createWorkspace(asAda, 'ops');
      if (!made.ok) throw new Error('not made');
      const renamed = await accounts.renameWorkspace(asAda, workspace.id, 'core');
      expect(renamed).toMatchObject({ ok: true, workspace: { name: 'core' } });
      expect(heard.slice(0, 2)).toEqual([
        { kind: 'access', userId: ada.id },
        { kind: 'people', subjectId: made.workspace.id, members: [] },
      ]);
      expect(
        heard
          .slice(2, 4)
          .map((said) => (said.kind === 'access' ? said.userId : ''))
          .sort(),
      ).toEqual([ada.id, bo.id].sort());
      expect(heard.slice(4)).toEqual([{ kind: 'people', subjectId: workspace.id, members: [] }]);
    });

    it('tells admins of a person invited', async () => {
      const { asAda } = await team();
      const invite = { name: 'cy', origin: 'http://clarion.test' };
      const invited = await service.accounts.inviteUser(asAda, invite);
      if (!invited.ok) throw new Error('not invited');
      expect(service.heard).toEqual([{ kind: 'people', subjectId: invited.user.id, members: [] }]);
    });

    it("ends a deleted person's sessions before telling of their access, credentials and People", async () => {
      const { ada, bo, workspace, asAda } = await team();
      await ensureWorkspaceMember(store, { workspaceId: workspace.id, userId: bo.id });
      const task = await createTask(store, {
        workspaceId: workspace.id,
        title: 'x',
        createdBy: bo.id,
      });
      const session = await createSession(store, { taskId: task.id, agentProfile: 'demo' });

      expect(await service.accounts.deleteUser(asAda, bo.id)).toEqual({
        ok: true,
        actedFor: [session.id],
        coMembers: [ada.id],
      });
      expect(service.heard).toEqual([
        { kind: 'acted_for_ended', sessionIds: [session.id], why: 'owner_deleted' },
        { kind: 'access', userId: bo.id },
        { kind: 'credentials', userId: bo.id },
        { kind: 'people', subjectId: bo.id, members: [ada.id] },
      ]);
    });

    it("ends a removed member's sessions in that workspace alone before telling of their access", async () => {
      const { ada, bo, workspace, asAda } = await team();
      const elsewhere = await createWorkspace(store, { name: 'elsewhere' });
      const sessions: Record<string, string> = {};
      for (const [place, by] of [
        [workspace.id, bo.id],
        [elsewhere.id, bo.id],
        [workspace.id, ada.id],
      ] as const) {
        await ensureWorkspaceMember(store, { workspaceId: place, userId: by });
        const task = await createTask(store, { workspaceId: place, title: 'x', createdBy: by });
        const session = await createSession(store, { taskId: task.id, agentProfile: 'demo' });
        sessions[`${place}/${by}`] = session.id;
      }
      const bosHere = sessions[`${workspace.id}/${bo.id}`] ?? '';

      expect(await service.accounts.removeMember(asAda, workspace.id, bo.id)).toEqual({
        ok: true,
        actedFor: [bosHere],
      });
      expect(service.heard.slice(0, 2)).toEqual([
        { kind: 'acted_for_ended', sessionIds: [bosHere], why: 'owner_removed' },
        { kind: 'access', userId: bo.id },
      ]);
    });

    it('tells of an "Always allow" revoked, to its owner\'s pages, and of nothing refused', async () => {
      const { bo, workspace, asAda } = await team();
      const changed: string[] = [];
      const rules = consentRuleService({ store, rulesChanged: (userId) => changed.push(userId) });
      await keepConsentRule(store, {
        userId: bo.id,
        scope: { workspace_id: workspace.id, cwd: '/srv/app' },
        profile: 'demo',
        toolKey: 'execute',
        command: 'npm test',
        surface: 'web',
      });
      const [rule] = await listConsentRules(store, bo.id);
      const ruleId = rule?.id ?? '';
      const asBo = { kind: 'user', userId: bo.id, name: 'bo', isAdmin: false } as const;

      expect(await rules.revoke(asBo, 'rest', 'no-such-rule')).toMatchObject({ code: 'not_found' });
      expect(changed).toEqual([]);
      // An admin's revoke ends someone else's rule: its owner is the one told.
      expect(await rules.revoke(asAda, 'web', ruleId)).toEqual({ ok: true, owner: bo.id });
      expect(changed).toEqual([bo.id]);
      expect(await rules.revoke(asBo, 'web', ruleId)).toMatchObject({ code: 'not_found' });
      expect(changed).toEqual([bo.id]);
      expect((await rules.list(asBo)).revoked).toMatchObject([{ id: ruleId }]);
    });

    const bound = { waitedMs: 0 };

    /** A browser session of `userId`, signed in with a fresh link. */
    async function browser(userId: string): Promise<string> {
      const link = await issueToken(store, { kind: 'sign_in', userId });
      const redeemed = await redeemSignIn(store, link.secret);
      if (!redeemed.ok) throw new Error('not signed in');
      return redeemed.browserSecret;
    }

    it('tells of a token made and revoked, and of nothing unknown', async () => {
      const ada = await createUser(store, { name: 'ada' });
      const asAda = { kind: 'user', userId: ada.id, name: 'ada', isAdmin: false } as const;
      const { accounts, heard } = service;

      const made = await accounts.createToken(asAda, { name: 'ci', kind: 'user' });
      if (!made.ok) throw new Error('not made');
      expect(await accounts.revokeToken(asAda, made.token.id, bound)).toEqual({ ok: true });
      expect(await accounts.revokeToken(asAda, made.token.id, bound)).toMatchObject({
        code: 'not_found',
      });
      expect(heard).toEqual([
        { kind: 'tokens', userId: ada.id },
        { kind: 'credentials', userId: ada.id },
        { kind: 'tokens', userId: ada.id },
      ]);
    });

    it('tells of browser sessions ended by a sign-out, of the others, or by a new sign-in', async () => {
      const ada = await createUser(store, { name: 'ada' });
      const bo = await createUser(store, { name: 'bo' });
      const { accounts, heard } = service;

      const phone = await browser(ada.id);
      const laptop = await browser(ada.id);
      expect(await accounts.signOutOthers(ada.id, laptop, bound)).toBe(1);
      // None left to end: nothing to tell.
      expect(await accounts.signOutOthers(ada.id, laptop, bound)).toBe(0);
      expect(await accounts.signOut(ada.id, phone, bound)).toBe(false);
      expect(await accounts.signOut(ada.id, laptop, bound)).toBe(true);
      // Each end took any Web Push channel that sign-in turned on: her other devices read theirs.
      expect(heard.splice(0)).toEqual([
        { kind: 'credentials', userId: ada.id },
        { kind: 'notifications', userId: ada.id },
        { kind: 'credentials', userId: ada.id },
        { kind: 'notifications', userId: ada.id },
      ]);

      // Bo's link opened where Ada is signed in, switching: Ada's session there ends.
      const shared = await browser(ada.id);
      const link = await issueToken(store, { kind: 'sign_in', userId: bo.id });
      const switched = { secret: link.secret, currentSecret: shared, switchAccount: true };
      expect(await accounts.signIn(switched)).toMatchObject({ ok: true, replaced: ada.id });
      const fresh = await issueToken(store, { kind: 'sign_in', userId: bo.id });
      const first = { secret: fresh.secret, currentSecret: undefined, switchAccount: false };
      expect(await accounts.signIn(first)).toMatchObject({ ok: true, replaced: undefined });
      expect(heard).toEqual([
        { kind: 'credentials', userId: ada.id },
        { kind: 'notifications', userId: ada.id },
      ]);
    });
  },
);

/** Members in a set's order: who lists a workspace, not in which order they were read. */
function sortedMembers<T extends { kind: string }>(said: T): T {
  return 'members' in said && Array.isArray(said.members)
    ? { ...said, members: [...(said.members as string[])].sort() }
    : said;
}
