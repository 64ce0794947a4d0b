/**
 * Two admins deleting each other at once, on PostgreSQL, where writes run
 * side by side (SQLite runs one at a time). Each request's credential was
 * read before either deletion committed; deleting without a look at the
 * caller's own row, both would go and leave nobody to administer until a
 * restart. A third connection holds the first admin's row, so both deletions
 * are under way before either can finish: with both users' rows locked in
 * one order, the second reads again once the first has committed, finds its
 * caller gone and is refused.
 */
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deleteUser } from '../../src/auth/accounts.js';
import { createUser, listUsers, openStore, type Store } from '../../src/store/index.js';
import { freshDatabase, type TestDatabase } from '../support/databases.js';
import { releaseWhenAllWait } from '../support/held-row.js';
import { fakeClock, sequentialIds } from '../support/fakes.js';

describe('the last admin, two admins deleting each other at once on postgres', () => {
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

  /** Lets the held row go once both are under way (`releaseWhenAllWait`). */
  const releaseWhenBothUnderWay = (racers: Promise<unknown>[]) =>
    releaseWhenAllWait(holder, racers);

  it('lets one deletion go and refuses the other, whose caller is gone', async () => {
    const ada = await createUser(store, { name: 'ada', isAdmin: true });
    const grace = await createUser(store, { name: 'grace', isAdmin: true });
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [ada.id]);
    const asAda = { kind: 'user', userId: ada.id, name: 'ada', isAdmin: true } as const;
    const asGrace = { kind: 'user', userId: grace.id, name: 'grace', isAdmin: true } as const;
    const deletions = [deleteUser(store, asAda, grace.id), deleteUser(store, asGrace, ada.id)];
    await releaseWhenBothUnderWay(deletions);

    const outcomes = await Promise.all(deletions);
    expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(1);
    expect(outcomes.filter((outcome) => !outcome.ok)).toEqual([
      expect.objectContaining({ code: 'unauthorized' }),
    ]);
    const admins = (await listUsers(store)).filter((user) => user.is_admin === 1);
    expect(admins).toHaveLength(1);
  });
});
