/**
 * Plan evidence for the poll every replica runs every 2 s (issue 16): the
 * running turns with a cancel waiting for their holder are found through the
 * nearly empty `idx_turns_cancel_requested`, never by scanning the turns,
 * whatever their number. Plans, not timings, so the test cannot flake.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  acquireLease,
  cancelRequestsQuery,
  createUser,
  createWorkspace,
  openStore,
  requestTurnCancel,
  sessionsWithCancelRequest,
  timestampAtMs,
  type Store,
} from '../../src/store/index.js';
import { insertPendingSessions } from '../support/bulk.js';
import { DRIVERS, freshDatabase, type TestDatabase } from '../support/databases.js';

const SESSIONS = 2_000;
const HOLDER = 'holder';

describe.each(DRIVERS)('the cancel-request poll on %s', (driver) => {
  let database: TestDatabase;
  let store: Store;

  beforeAll(async () => {
    database = await freshDatabase(driver, { migrated: true });
    store = await openStore(database.target);
    const workspace = await createWorkspace(store, { name: 'turns' });
    await createUser(store, { name: 'admin' });
    await insertPendingSessions(store, { workspaceId: workspace.id, count: SESSIONS, tag: 'b' });
    const nowMs = store.clock.nowMs();
    const terms = {
      replicaId: HOLDER,
      now: timestampAtMs(nowMs),
      expiresAt: timestampAtMs(nowMs + 60_000),
    };
    for (const sessionId of ['b-s-1', 'b-s-2', 'b-s-3']) {
      expect(await acquireLease(store, sessionId, terms)).toBe(true);
    }
    const user = await createUser(store, { name: 'Ada' });
    // One held session and one held elsewhere (no lease here) have a cancel waiting.
    expect(
      await requestTurnCancel(store, { sessionId: 'b-s-2', userId: user.id, surface: 'web' }),
    ).toBe(true);
    expect(
      await requestTurnCancel(store, { sessionId: 'b-s-7', userId: user.id, surface: 'web' }),
    ).toBe(true);
    await store.refreshStatistics();
    if (driver === 'postgres') await sql`ANALYZE`.execute(store.db);
  });

  afterAll(async () => {
    await store.close();
    await database.dispose();
  });

  const mine = { kind: 'held_by', replicaId: HOLDER } as const;

  it('finds exactly the held sessions with a cancel waiting', async () => {
    expect(await sessionsWithCancelRequest(store, mine)).toEqual(['b-s-2']);
    expect((await sessionsWithCancelRequest(store, { kind: 'all' })).sort()).toEqual([
      'b-s-2',
      'b-s-7',
    ]);
  });

  it('reads the cancel-request index, never the whole turns table', async () => {
    const query = cancelRequestsQuery(store, mine).compile();
    const plan = (await store.dialect.explain(store.db, query)).join('\n');
    console.info(`[${driver}] cancel poll plan:\n${plan}`);
    expect(plan).toContain('idx_turns_cancel_requested');
    // SQLite walks the partial index (its few entries); a table scan names no index.
    expect(plan).not.toMatch(/SCAN task_session_turns\s*$/m);
    expect(plan).not.toMatch(/Seq Scan on task_session_turns/);
  });
});
