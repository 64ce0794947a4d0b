/**
 * Two removals at once of a workspace's two owners, on PostgreSQL, where
 * writes run side by side (SQLite runs one at a time). Each reads the owners
 * before it deletes; read without a lock, both would count the other and go,
 * leaving the workspace with nobody to see it. A third connection holds one
 * owner's row, so both removals are under way before either can finish:
 * with the owner rows locked as they are read, the second reads again once
 * the first has committed, and is refused.
 */
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deleteUser, removeMember } from '../../src/auth/accounts.js';
import {
  addWorkspaceMember,
  createUser,
  createWorkspace,
  listWorkspaceMembers,
  openStore,
  type Store,
} from '../../src/store/index.js';
import { freshDatabase, type TestDatabase } from '../support/databases.js';
import { releaseWhenAllWait } from '../support/held-row.js';
import { fakeClock, sequentialIds } from '../support/fakes.js';

describe("a workspace's last owner, two removals at once on postgres", () => {
  let database: TestDatabase;
  let store: Store;
  let holder: pg.Client;

  beforeEach(async () => {
    database = await freshDatabase('postgres', { migrated: true });
    if (database.target.driver !== 'postgres') throw new Error('postgres only');
    store = await openStore(database.target, { clock: fakeClock(), ids: sequentialIds() });
    holder = new pg.Client({ connectionString: database.target.url });
    await holder.connect();
  });

  afterEach(async () => {
    await holder.end();
    await store.close();
    await database.dispose();
  });

  /** Two owners of one workspace; the holder's open transaction locks the first one's row. */
  async function twoOwnersOneHeld() {
    const ada = await createUser(store, { name: 'ada' });
    const grace = await createUser(store, { name: 'grace' });
    const team = await createWorkspace(store, { name: 'team' });
    for (const user of [ada, grace]) {
      await addWorkspaceMember(store, { workspaceId: team.id, userId: user.id, role: 'owner' });
    }
    await holder.query('BEGIN');
    await holder.query(
      'SELECT 1 FROM workspace_members WHERE workspace_id = $1 AND user_id = $2 FOR UPDATE',
      [team.id, ada.id],
    );
    return { ada, grace, team };
  }

  /** Lets the held row go once both are under way (`releaseWhenAllWait`). */
  const releaseWhenBothUnderWay = (racers: Promise<unknown>[]) =>
    releaseWhenAllWait(holder, racers);

  async function owners(workspaceId: string): Promise<string[]> {
    const members = await listWorkspaceMembers(store, workspaceId);
    return members.filter((member) => member.role === 'owner').map((member) => member.user_name);
  }

  it('lets one of two member removals go and refuses the other', async () => {
    const { ada, grace, team } = await twoOwnersOneHeld();
    const admin = await createUser(store, { name: 'admin', isAdmin: true });
    const caller = { kind: 'user', userId: admin.id, name: 'admin', isAdmin: true } as const;
    const removals = [
      removeMember(store, caller, team.id, ada.id),
      removeMember(store, caller, team.id, grace.id),
    ];
    await releaseWhenBothUnderWay(removals);

    const outcomes = await Promise.all(removals);
    expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(1);
    expect(outcomes.filter((outcome) => !outcome.ok)).toEqual([
      expect.objectContaining({ code: 'conflict' }),
    ]);
    expect(await owners(team.id)).toHaveLength(1);
  });

  it('lets one of two user deletions go and refuses the other', async () => {
    const { ada, grace, team } = await twoOwnersOneHeld();
    const admin = await createUser(store, { name: 'admin', isAdmin: true });
    const caller = { kind: 'user', userId: admin.id, name: 'admin', isAdmin: true } as const;
    const deletions = [deleteUser(store, caller, ada.id), deleteUser(store, caller, grace.id)];
    await releaseWhenBothUnderWay(deletions);

    const outcomes = await Promise.all(deletions);
    expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(1);
    expect(outcomes.filter((outcome) => !outcome.ok)).toEqual([
      expect.objectContaining({ code: 'conflict' }),
    ]);
    expect(await owners(team.id)).toHaveLength(1);
  });
});
