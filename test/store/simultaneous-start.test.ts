/**
 * Servers started at the same moment on one empty PostgreSQL database (a
 * compose file or a deployment starting every replica together). Each runs
 * its start-up schema steps and bootstraps the accounts; without a lock
 * between them, two create one table and PostgreSQL fails the second
 * (`duplicate key value violates unique constraint "pg_type_typname_nsp_index"`),
 * and two find no admin and both create one.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { bootstrapAccounts } from '../../src/auth/index.js';
import { openStore, type Store } from '../../src/store/index.js';
import { freshDatabase, type TestDatabase } from '../support/databases.js';

const SERVERS = 3;
const ROUNDS = 3;

describe('servers starting at once on one empty PostgreSQL database', () => {
  const databases: TestDatabase[] = [];
  const stores: Store[] = [];

  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    for (const database of databases.splice(0)) await database.dispose();
  });

  it('all start, with one schema, one admin and one workspace', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const database = await freshDatabase('postgres');
      databases.push(database);
      const opened = await Promise.allSettled(
        Array.from({ length: SERVERS }, () => openStore(database.target)),
      );
      for (const result of opened) if (result.status === 'fulfilled') stores.push(result.value);
      expect(opened.map((result) => result.status)).toEqual(Array(SERVERS).fill('fulfilled'));
      const started = stores.slice(-SERVERS);
      expect(started.map((store) => store.schema.state)).toEqual(Array(SERVERS).fill('ready'));

      const booted = await Promise.all(started.map((store) => bootstrapAccounts(store)));
      expect(booted.filter((result) => result.createdAdmin)).toHaveLength(1);
      expect(new Set(booted.map((result) => result.admin.id)).size).toBe(1);
      const [store] = started;
      if (!store) throw new Error('no store');
      const admins = await store.db
        .selectFrom('users')
        .select('id')
        .where('is_admin', '=', 1)
        .execute();
      expect(admins).toHaveLength(1);
      const workspaces = await store.db.selectFrom('workspaces').select('id').execute();
      expect(workspaces).toHaveLength(1);
    }
  });
});
