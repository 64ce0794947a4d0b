/**
 * Plan evidence that the inbox page is bounded by what the caller can see:
 * with thousands of pending bundles (plus superseded bundles, ended sessions
 * and another workspace's bundles), no plan node runs once per pending row
 * against a whole table, and pending rows are reached only through the
 * pending-rows index. Plans, not timings, so the test cannot flake.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PENDING_ROWS_INDEX,
  activeBundleHeadsQuery,
  activeBundlePage,
  addWorkspaceMember,
  createUser,
  createWorkspace,
  openStore,
  type PendingCursor,
  type Store,
} from '../../src/store/index.js';
import { insertPendingSessions } from '../support/bulk.js';
import { DRIVERS, freshDatabase, type TestDatabase } from '../support/databases.js';

const SESSIONS = 3_000;
const OTHER_SESSIONS = 300;

/** One node of PostgreSQL's `EXPLAIN (ANALYZE, FORMAT JSON)`. */
interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Join Filter'?: number;
  Plans?: PlanNode[];
}

function nodes(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(nodes)];
}

/** Rows a node produced or threw away over all its executions. */
function rowsTouched(node: PlanNode): number {
  const perLoop =
    node['Actual Rows'] +
    (node['Rows Removed by Filter'] ?? 0) +
    (node['Rows Removed by Join Filter'] ?? 0);
  return perLoop * node['Actual Loops'];
}

describe.each(DRIVERS)('inbox page plan on %s', (driver) => {
  let database: TestDatabase;
  let store: Store;
  let userId: string;
  let active: number;
  let pendingRows: number;

  beforeAll(async () => {
    database = await freshDatabase(driver, { migrated: true });
    store = await openStore(database.target);
    const workspace = await createWorkspace(store, { name: 'inbox' });
    const other = await createWorkspace(store, { name: 'not visible' });
    const user = await createUser(store, { name: 'admin' });
    await addWorkspaceMember(store, { workspaceId: workspace.id, userId: user.id, role: 'owner' });
    userId = user.id;
    ({ live: active } = await insertPendingSessions(store, {
      workspaceId: workspace.id,
      count: SESSIONS,
      tag: 'mine',
    }));
    await insertPendingSessions(store, {
      workspaceId: other.id,
      count: OTHER_SESSIONS,
      tag: 'theirs',
    });
    // Two bundles (one superseded) per session, both still saying pending.
    pendingRows = 2 * (SESSIONS + OTHER_SESSIONS);
    await store.refreshStatistics();
    if (driver === 'postgres') await sql`ANALYZE`.execute(store.db);
  });

  afterAll(async () => {
    await store.close();
    await database.dispose();
  });

  const scope = () => ({ kind: 'user', userId }) as const;

  it('pages through exactly the visible active bundles, oldest first', async () => {
    const seen: string[] = [];
    let after: PendingCursor | undefined;
    for (;;) {
      const page = await activeBundlePage(store, scope(), { after, limit: 200 });
      seen.push(...page.bundles.map((bundle) => bundle.pendingId));
      if (!page.next) break;
      after = page.next;
    }
    const expected = Array.from({ length: SESSIONS }, (_, i) => i)
      .filter((i) => i % 10 !== 9)
      .map((i) => `mine-p-${i}`);
    expect(seen).toHaveLength(active);
    expect(seen).toEqual(expected);
  });

  it('reaches pending rows through the pending-rows index, never by scanning messages', async () => {
    const query = activeBundleHeadsQuery(store, scope(), { limit: 51 }).compile();
    if (driver === 'sqlite') {
      const plan = (await store.dialect.explain(store.db, query)).join('\n');
      console.info(`[${driver}] inbox plan:\n${plan}`);
      expect(plan).toContain(`SEARCH task_session_messages USING INDEX ${PENDING_ROWS_INDEX}`);
      // Alias r is the current-turn rule's probe of a reserved turn, a seek by turn.
      expect(plan).not.toMatch(/SCAN task_session_messages\b(?! r\b)/);
      return;
    }
    const result = await store.db.executeQuery<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>({
      ...query,
      sql: `EXPLAIN (ANALYZE, FORMAT JSON) ${query.sql}`,
    });
    const root = result.rows[0]?.['QUERY PLAN'][0].Plan;
    if (!root) throw new Error('no plan');
    const all = nodes(root);
    const summary = all.map(
      (node) =>
        `${node['Node Type']} ${node['Relation Name'] ?? ''} ${node['Index Name'] ?? ''} ` +
        `loops=${node['Actual Loops']} touched=${rowsTouched(node)}`,
    );
    console.info(`[${driver}] inbox plan:\n${summary.join('\n')}`);
    expect(all.some((node) => node['Index Name'] === PENDING_ROWS_INDEX)).toBe(true);
    expect(
      all.filter(
        (n) => n['Node Type'] === 'Seq Scan' && n['Relation Name'] === 'task_session_messages',
      ),
    ).toEqual([]);
    // A table scanned once per session or row is what made a 10k inbox take seconds.
    expect(all.filter((n) => n['Node Type'] === 'Seq Scan' && n['Actual Loops'] > 1)).toEqual([]);
    // Every node touches at most a few rows per pending row, however often it runs.
    for (const node of all) expect(rowsTouched(node)).toBeLessThanOrEqual(2 * pendingRows);
  });
});
