/**
 * Plan evidence that pending-ID reads seek the ordered index, not a
 * transcript-sized scan, with 100k unrelated messages in the table. Dropping
 * the index must change the plan, so the assertion can fail.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PENDING_ID_ORDERED_INDEX,
  activePendingIdByFingerprint,
  activePendingIdByFingerprintQuery,
  appendMessage,
  bundleForPrincipalQuery,
  claimBundleQuery,
  messagesByPendingIdQuery,
  openBundleCount,
  openBundleCountQuery,
  openStore,
  type Store,
} from '../../src/store/index.js';
import { insertUnrelatedMessages } from '../support/bulk.js';
import { DRIVERS, freshDatabase, type TestDatabase } from '../support/databases.js';
import { bundleRows, seedSession, type Seeded } from '../support/seed.js';

const UNRELATED_MESSAGES = 100_000;

describe.each(DRIVERS)('pending-ID query plan on %s', (driver) => {
  let database: TestDatabase;
  let store: Store;
  let seeded: Seeded;

  beforeAll(async () => {
    database = await freshDatabase(driver, { migrated: true });
    store = await openStore(database.target);
    await insertUnrelatedMessages(store, UNRELATED_MESSAGES);
    seeded = await seedSession(store, 'target');
    for (const row of bundleRows(seeded, 'target-bundle', 3)) await appendMessage(store, row);
    await refreshAsInProduction();
  });

  /**
   * What keeps statistics current in production: the store's refresh (SQLite's
   * PRAGMA optimize at start-up and hourly); PostgreSQL's autovacuum analyzes on
   * its own schedule, so the test runs ANALYZE in its place.
   */
  async function refreshAsInProduction(): Promise<void> {
    await store.refreshStatistics();
    if (driver === 'postgres') await sql`ANALYZE`.execute(store.db);
  }

  afterAll(async () => {
    await store.close();
    await database.dispose();
  });

  async function plan(): Promise<string> {
    const query = messagesByPendingIdQuery(store, 'target-bundle').compile();
    return (await store.dialect.explain(store.db, query)).join('\n');
  }

  it('seeks idx_messages_metadata_pending_id_lookup_ordered, then another plan once it is dropped', async () => {
    const count = await store.db
      .selectFrom('task_session_messages')
      .select((eb) => eb.fn.countAll<number | string>().as('rows'))
      .executeTakeFirstOrThrow();
    expect(Number(count.rows)).toBeGreaterThanOrEqual(UNRELATED_MESSAGES);

    const withIndex = await plan();
    console.info(`[${driver}] plan with the ordered index:\n${withIndex}`);
    expect(withIndex).toContain(PENDING_ID_ORDERED_INDEX);
    // The index also yields the bundle order: no sort step on top of it.
    expect(withIndex).not.toMatch(/TEMP B-TREE|Sort/);

    await sql.raw(`DROP INDEX ${PENDING_ID_ORDERED_INDEX}`).execute(store.db);
    const withoutIndex = await plan();
    console.info(`[${driver}] plan without it:\n${withoutIndex}`);
    expect(withoutIndex).not.toContain(PENDING_ID_ORDERED_INDEX);
    expect(withoutIndex).not.toEqual(withIndex);

    const rows = await messagesByPendingIdQuery(store, 'target-bundle').execute();
    expect(rows.map((row) => row.content)).toEqual(['question 1', 'question 2', 'question 3']);
    await sql.raw(store.dialect.pendingIdIndexes[2]?.ddl ?? '').execute(store.db);
  });

  it.each(['user', 'agent'] as const)(
    'reads a bundle with its visibility to a %s through the ordered index in one statement',
    async (kind) => {
      await refreshAsInProduction();
      const principal =
        kind === 'user'
          ? ({ kind, userId: 'someone', name: 'Someone', isAdmin: true } as const)
          : ({ kind, userId: 'someone', sessionId: seeded.session.id } as const);
      const query = bundleForPrincipalQuery(store, principal, 'target-bundle').compile();
      const plan = (await store.dialect.explain(store.db, query)).join('\n');
      console.info(`[${driver}] bundle-for-${kind} plan:\n${plan}`);
      expect(plan).toContain(PENDING_ID_ORDERED_INDEX);
      // The index yields the bundle order; the visibility probe reads no transcript.
      expect(plan).not.toMatch(/TEMP B-TREE|Sort/);
      expect(plan).not.toMatch(/SCAN task_session_messages\b|Seq Scan on task_session_messages\b/);
    },
  );

  it('claims through the ordered index, every pending-ID predicate included', async () => {
    await refreshAsInProduction();
    const claim = claimBundleQuery(store, {
      pendingId: 'target-bundle',
      sessionId: seeded.session.id,
      turnId: seeded.turn.id,
      status: 'answered',
      responses: new Map([['q1', { question_id: 'q1' }]]),
      rejectReason: '',
      respondedAt: store.clock.timestamp(),
      respondedBy: { user_id: 'u', name: 'Ada', surface: 'rest' },
    }).compile();
    const plan = (await store.dialect.explain(store.db, claim)).join('\n');
    console.info(`[${driver}] claim plan:\n${plan}`);
    // The bundle's rows are reached through it and no other way, even with the
    // row's turn bound (turn IDs are unique). The guards are bound to the
    // identified session and turn, so they run once, not per row. (The
    // current-turn rule's "does a message refer to this turn" probe, alias r,
    // is another access path: with 25k messages per turn here PostgreSQL
    // rightly expects a hit at once, and it only runs for a reserved turn.)
    const uses = plan.split(PENDING_ID_ORDERED_INDEX).length - 1;
    expect(uses).toBeGreaterThanOrEqual(1);
    expect(plan).not.toMatch(
      /SCAN task_session_messages\b(?! r\b)|Seq Scan on task_session_messages\b(?! r\b)/,
    );
    expect(plan).not.toMatch(
      /SEARCH task_session_messages USING (COVERING )?INDEX (?!idx_messages_metadata_pending_id_lookup_ordered\b)/,
    );
    expect(plan).not.toMatch(
      /(Index|Index Only|Bitmap Index) Scan (using|on) (?!idx_messages_metadata_pending_id_lookup_ordered\b)\S+ on task_session_messages\b(?! r\b)/,
    );
    expect(plan).not.toMatch(
      /CORRELATED SCALAR SUBQUERY \d+\nSEARCH (t|s)\b|SubPlan \d+\n\s+-> {2}Limit/,
    );
  });
  it("finds an ask's duplicate through the current turn's pending rows, not the session's transcript", async () => {
    const [first] = bundleRows(seeded, 'fingerprinted-bundle', 1);
    if (!first) throw new Error('no bundle row');
    await appendMessage(store, {
      ...first,
      metadata: { ...first.metadata, request_fingerprint: 'fingerprint-1' },
    });
    await refreshAsInProduction();
    const query = activePendingIdByFingerprintQuery(
      store,
      seeded.session.id,
      'fingerprint-1',
    ).compile();
    const plan = (await store.dialect.explain(store.db, query)).join('\n');
    console.info(`[${driver}] ask fingerprint plan:\n${plan}`);
    // Every question a session ever asked stays in its transcript: the check
    // seeks the pending-rows index of the bound current turn and reads no
    // session-wide range (the session-leading indexes grow with each cycle).
    expect(plan).toContain(store.dialect.pendingRowsIndex.name);
    expect(plan).not.toMatch(
      /SCAN task_session_messages\b(?! r\b)|Seq Scan on task_session_messages\b(?! r\b)/,
    );
    expect(plan).not.toMatch(
      /SEARCH task_session_messages USING (COVERING )?INDEX (?!idx_messages_pending_clarification_turn\b)/,
    );
    expect(plan).not.toMatch(
      /(Index|Index Only|Bitmap Index) Scan (using|on) (?!idx_messages_pending_clarification_turn\b)\S+ on task_session_messages\b(?! r\b)/,
    );
    expect(plan).not.toMatch(/CORRELATED SCALAR SUBQUERY \d+\nSEARCH (t|s)\b/);
    expect(await activePendingIdByFingerprint(store, seeded.session.id, 'fingerprint-1')).toBe(
      'fingerprinted-bundle',
    );
    expect(
      await activePendingIdByFingerprint(store, seeded.session.id, 'fingerprint-2'),
    ).toBeUndefined();
  });

  it("counts an ask's open bundles through the current turn's pending rows, not the transcript", async () => {
    await refreshAsInProduction();
    const query = openBundleCountQuery(store, seeded.session.id).compile();
    const plan = (await store.dialect.explain(store.db, query)).join('\n');
    console.info(`[${driver}] open bundle count plan:\n${plan}`);
    // Read in every ask's write (an external agent's: once per session of its
    // person), so it seeks the small pending-rows index of the bound turn.
    expect(plan).toContain(store.dialect.pendingRowsIndex.name);
    expect(plan).not.toMatch(
      /SCAN task_session_messages\b(?! r\b)|Seq Scan on task_session_messages\b(?! r\b)/,
    );
    expect(plan).not.toMatch(
      /(Index|Index Only|Bitmap Index) Scan (using|on) (?!idx_messages_pending_clarification_turn\b)\S+ on task_session_messages\b(?! r\b)/,
    );
    expect(await openBundleCount(store, seeded.session.id)).toBeGreaterThanOrEqual(1);
  });
});
