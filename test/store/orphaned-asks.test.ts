/**
 * The poll's read of asks whose replica is gone, and their detach, on both
 * dialects (issue 16): only an external agent's bundle still attached to a
 * wait on a replica that no longer runs (dead heartbeat, stopped, or pruned)
 * is found; the detach marks its rows once, and leaves a bundle whose agent
 * asked again on a live replica meanwhile. On PostgreSQL, where replicas
 * poll, the read walks the attached-asks index among thousands of other
 * messages, a backlog of detached questions included; dropping the index
 * changes the plan, so the check can fail.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXTERNAL_AGENT_PROFILE } from '../../src/agents/index.js';
import {
  ATTACHED_ASKS_INDEX,
  appendMessage,
  createSession,
  detachOrphanedAsk,
  holdReplicaLock,
  reattachBundleRows,
  markReplicaStopped,
  messagesByPendingId,
  openStore,
  orphanedAsks,
  orphanedAsksQuery,
  registerReplica,
  startTurn,
  timestampAtMs,
  type Store,
} from '../../src/store/index.js';
import { insertUnrelatedMessages } from '../support/bulk.js';
import { DRIVERS, freshDatabase, type TestDatabase } from '../support/databases.js';
import { seedSession, type Seeded } from '../support/seed.js';

const LEASE_MS = 15_000;
const UNRELATED_MESSAGES = 20_000;
/** Questions that wait for a person with no agent attached: the inbox's backlog. */
const DETACHED_BACKLOG = 500;

/**
 * What each engine's plan must show. Only PostgreSQL runs several replicas,
 * so only it has the attached-asks index; SQLite reads the external
 * sessions' messages by session, never the whole table.
 */
const PLANS = {
  postgres: {
    reads: new RegExp(`Index Scan using ${ATTACHED_ASKS_INDEX} on task_session_messages `),
    neverScans: /Seq Scan on task_session_messages\s+\(/,
    // The live replicas are read once per statement, not once per row.
    liveReplicasOnce: /hashed SubPlan/,
  },
  sqlite: {
    reads: /SEARCH task_session_messages USING INDEX/,
    neverScans: /SCAN task_session_messages\b(?! USING)/,
    liveReplicasOnce: /LIST SUBQUERY \d+\n(?:.*\n)*?SCAN r\b/,
  },
} as const;

describe.each(DRIVERS)('asks of a gone replica on %s', (driver) => {
  let database: TestDatabase;
  let store: Store;
  let external: Seeded;
  let acp: Seeded;
  let releaseLock: () => Promise<void>;
  let heartbeatAfter: string;

  async function ask(
    seeded: Seeded,
    pendingId: string,
    metadata: Record<string, unknown>,
    questions = 2,
  ): Promise<void> {
    for (let index = 0; index < questions; index++) {
      await appendMessage(store, {
        sessionId: seeded.session.id,
        taskId: seeded.task.id,
        turnId: seeded.turn.id,
        authorType: 'agent',
        type: 'clarification_request',
        content: `${pendingId} q${index + 1}`,
        requestsInput: index === questions - 1,
        metadata: {
          pending_id: pendingId,
          question_id: `q${index + 1}`,
          status: 'pending',
          ...metadata,
        },
      });
    }
  }

  beforeAll(async () => {
    database = await freshDatabase(driver, { migrated: true });
    store = await openStore(database.target);
    await insertUnrelatedMessages(store, UNRELATED_MESSAGES);
    const nowMs = store.clock.nowMs();
    heartbeatAfter = timestampAtMs(nowMs - LEASE_MS);
    // A live replica holds its lock (PostgreSQL) and beats; the others do not run.
    const lock = await holdReplicaLock(database.target);
    releaseLock = () => lock.release();
    const register = (id: string, lockKey: number | null, atMs: number) =>
      registerReplica(store, {
        id,
        lockKey,
        now: timestampAtMs(atMs),
        heartbeatAfter: timestampAtMs(atMs - LEASE_MS),
      });
    expect(await register('live', lock.key, nowMs)).toEqual({ ok: true });
    expect(await register('silent', null, nowMs - 2 * LEASE_MS)).toEqual({ ok: true });
    expect(await register('stopped', null, nowMs)).toEqual({ ok: true });
    await markReplicaStopped(store, 'stopped', null, timestampAtMs(nowMs));

    external = await seedSession(store, 'external');
    await sql`UPDATE task_sessions SET agent_profile = ${EXTERNAL_AGENT_PROFILE}
      WHERE id = ${external.session.id}`.execute(store.db);
    acp = await seedSession(store, 'acp');
    await ask(external, 'on-live', { asked_on: 'live' });
    await ask(external, 'on-silent', { asked_on: 'silent' });
    await ask(external, 'on-stopped', { asked_on: 'stopped' });
    // Its replica's row was pruned: it names no replica at all.
    await ask(external, 'on-pruned', { asked_on: 'pruned' });
    await ask(external, 'already-detached', { asked_on: 'silent', agent_disconnected: true });
    await ask(external, 'no-replica', {});
    await ask(external, 'answered', { asked_on: 'silent', status: 'answered' });
    // A Clarion agent's session: its holder's takeover detaches it, not the poll.
    await ask(acp, 'acp-on-silent', { asked_on: 'silent' });
    // A question of an older turn of the session, not its current one.
    const older = await createSession(store, {
      taskId: external.task.id,
      agentProfile: EXTERNAL_AGENT_PROFILE,
    });
    const olderTurn = await startTurn(store, { sessionId: older.id, taskId: external.task.id });
    const stale = { task: external.task, session: older, turn: olderTurn };
    await ask(stale, 'older-turn', { asked_on: 'silent' });
    await startTurn(store, { sessionId: older.id, taskId: external.task.id });
    const backlog = await seedSession(store, 'backlog');
    await sql`UPDATE task_sessions SET agent_profile = ${EXTERNAL_AGENT_PROFILE}
      WHERE id = ${backlog.session.id}`.execute(store.db);
    for (let index = 0; index < DETACHED_BACKLOG; index++) {
      await ask(backlog, `backlog-${index}`, { asked_on: 'silent', agent_disconnected: true }, 1);
    }
    await store.refreshStatistics();
    if (driver === 'postgres') await sql`ANALYZE`.execute(store.db);
  }, 120_000);

  afterAll(async () => {
    await releaseLock();
    await store.close();
    await database.dispose();
  });

  const found = async () =>
    (await orphanedAsks(store, heartbeatAfter, EXTERNAL_AGENT_PROFILE))
      .map((orphan) => `${orphan.pendingId}@${orphan.askedOn}`)
      .sort();

  it("finds exactly the external agents' attached bundles whose replica does not run", async () => {
    expect(await found()).toEqual(['on-pruned@pruned', 'on-silent@silent', 'on-stopped@stopped']);
    for (const orphan of await orphanedAsks(store, heartbeatAfter, EXTERNAL_AGENT_PROFILE)) {
      expect(orphan.sessionId).toBe(external.session.id);
    }
  });

  it('detaches a bundle once, every row; a live replica or a repeated ask keeps its wait', async () => {
    const detached = await detachOrphanedAsk(store, 'on-silent', heartbeatAfter);
    expect(detached.map((row) => row.content)).toEqual(['on-silent q1', 'on-silent q2']);
    for (const row of await messagesByPendingId(store, 'on-silent')) {
      expect(row.metadata).toMatchObject({ agent_disconnected: true, status: 'pending' });
    }
    expect(await detachOrphanedAsk(store, 'on-silent', heartbeatAfter)).toEqual([]);
    expect(await detachOrphanedAsk(store, 'on-live', heartbeatAfter)).toEqual([]);
    expect(await detachOrphanedAsk(store, 'no-replica', heartbeatAfter)).toEqual([]);

    // The agent asked again on the live replica after the poll read the bundle.
    await reattachBundleRows(store, 'on-stopped', 'live');
    expect(await detachOrphanedAsk(store, 'on-stopped', heartbeatAfter)).toEqual([]);
    for (const row of await messagesByPendingId(store, 'on-stopped')) {
      expect(row.metadata).toMatchObject({ agent_disconnected: false, asked_on: 'live' });
    }
    expect(await found()).toEqual(['on-pruned@pruned']);
    expect(await detachOrphanedAsk(store, 'on-pruned', heartbeatAfter)).toHaveLength(2);
    expect(await found()).toEqual([]);
  });

  it('reads the attached-asks index, not the messages', async () => {
    const query = orphanedAsksQuery(store, heartbeatAfter, EXTERNAL_AGENT_PROFILE).compile();
    const plan = (await store.dialect.explain(store.db, query)).join('\n');
    console.info(`[${driver}] orphaned-asks poll plan:\n${plan}`);
    const expected = PLANS[driver];
    expect(plan).toMatch(expected.reads);
    // The one scan of messages PostgreSQL keeps is the current-turn check's, run per row found.
    expect(plan).not.toMatch(expected.neverScans);
    expect(plan).toMatch(expected.liveReplicasOnce);

    for (const index of store.dialect.attachedAsksIndexes) {
      await sql.raw(`DROP INDEX ${index.name}`).execute(store.db);
      const without = (await store.dialect.explain(store.db, query)).join('\n');
      expect(without).not.toContain(index.name);
      await sql.raw(index.ddl).execute(store.db);
    }
  });
});
