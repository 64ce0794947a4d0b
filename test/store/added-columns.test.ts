/**
 * Columns added after the tables shipped (a session's failure, a task's
 * `cwd`) converge on an existing database, on both engines: a database made
 * before them gets them at start-up with its rows untouched, and opening it
 * again changes nothing.
 */
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import {
  connectDatabase,
  dialectFor,
  getSession,
  getTask,
  openStore,
  schemaSteps,
  type Store,
} from '../../src/store/index.js';
import { DRIVERS, freshDatabase, type TestDatabase } from '../support/databases.js';

const NOW = '2026-01-01T00:00:00.000000000Z';

describe.each(DRIVERS)('added columns on %s', (driver) => {
  let database: TestDatabase;
  const opened: Store[] = [];

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
    await database.dispose();
  });

  it('adds the failure and cwd columns to a database made before them, rows untouched', async () => {
    database = await freshDatabase(driver);
    const dialect = dialectFor(driver);
    const raw = await connectDatabase(database.target);
    // The schema as it was: every step but the added columns and the indexes built on them.
    const steps = schemaSteps(dialect);
    const added = steps.flatMap((step) => ('addColumn' in step ? [step.addColumn] : []));
    const onAdded = (ddl: string) =>
      added.some(
        ({ table, column }) =>
          /^CREATE (UNIQUE )?INDEX\b/.test(ddl) &&
          ddl.includes(` ON ${table} `) &&
          new RegExp(`\\b${column}\\b`).test(ddl),
      );
    for (const step of steps) {
      if ('ddl' in step && !onAdded(step.ddl)) await sql.raw(step.ddl).execute(raw);
    }
    expect(await dialect.listColumns(raw, 'task_sessions')).not.toContain('failure_code');
    await sql`INSERT INTO workspaces (id, name, created_at, updated_at)
      VALUES ('w1', 'w', ${NOW}, ${NOW})`.execute(raw);
    await sql`INSERT INTO tasks (id, workspace_id, title, created_by, created_at, updated_at)
      VALUES ('t1', 'w1', 'old task', NULL, ${NOW}, ${NOW})`.execute(raw);
    await sql`INSERT INTO task_sessions (id, task_id, agent_profile, state, agent_session_id,
        revision, created_at, updated_at)
      VALUES ('s1', 't1', 'demo', 'failed', 'a1', 3, ${NOW}, ${NOW})`.execute(raw);
    await raw.destroy();

    for (let round = 0; round < 2; round += 1) {
      const store = await openStore(database.target);
      opened.push(store);
      expect(await store.dialect.listColumns(store.db, 'task_sessions')).toEqual(
        expect.arrayContaining(['failure_code', 'failure_message', 'failed_at']),
      );
      expect(await getSession(store, 's1')).toEqual({
        id: 's1',
        task_id: 't1',
        agent_profile: 'demo',
        state: 'failed',
        agent_session_id: 'a1',
        revision: 3,
        created_at: NOW,
        updated_at: NOW,
        failure_code: null,
        failure_message: null,
        failed_at: null,
      });
      expect(await getTask(store, 't1')).toMatchObject({ title: 'old task', cwd: null });
      await store.close();
      opened.splice(0);
    }
  });
});
