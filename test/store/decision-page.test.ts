/**
 * The decision log's page in the store, on both dialects: which transcript
 * rows are decisions is decided in SQL, so a page is full whenever more
 * decisions match, and a row the log does not read as a decision (an expiry,
 * a pending question, a kind this version does not know, as a newer replica
 * on the same PostgreSQL may write) never takes a page's place.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  addWorkspaceMember,
  appendMessage,
  createUser,
  decisionPage,
  openStore,
  type Store,
} from '../../src/store/index.js';
import { DRIVERS, freshDatabase, type TestDatabase } from '../support/databases.js';
import { fakeClock, sequentialIds, type FakeClock } from '../support/fakes.js';
import { seedSession, type Seeded } from '../support/seed.js';

describe.each(DRIVERS)('decision pages on %s', (driver) => {
  let database: TestDatabase;
  let store: Store;
  let seeded: Seeded;
  let userId: string;
  let clock: FakeClock;

  beforeEach(async () => {
    database = await freshDatabase(driver, { migrated: true });
    clock = fakeClock();
    store = await openStore(database.target, { clock, ids: sequentialIds() });
    seeded = await seedSession(store, 'decisions');
    const user = await createUser(store, { name: 'Ada' });
    userId = user.id;
    await addWorkspaceMember(store, {
      workspaceId: seeded.task.workspace_id,
      userId,
      role: 'member',
    });
  });

  afterEach(async () => {
    await store.close();
    await database.dispose();
  });

  const append = (type: string, metadata: Record<string, unknown>) =>
    appendMessage(store, {
      sessionId: seeded.session.id,
      taskId: seeded.task.id,
      turnId: seeded.turn.id,
      authorType: 'user',
      type,
      content: type,
      metadata,
    });

  it('pages only decisions, each page full while more match', async () => {
    const by = { user_id: 'u', name: 'Ada', surface: 'web' };
    const question = { prompt: 'Which?', options: [] };
    const decisions = [
      await append('clarification_request', { question, status: 'answered', responded_by: by }),
      await append('user_input_decision', { kind: 'consent', title: 'rm', responded_by: by }),
      await append('user_input_decision', {
        kind: 'form',
        title: 'f',
        decision: 'accept',
        responded_by: by,
      }),
    ];
    // Newer than every decision, so a page read before narrowing would start with them.
    await append('clarification_request', { question, status: 'expired', responded_by: by });
    await append('clarification_request', { question, status: 'pending' });
    await append('user_input_decision', { kind: 'survey', title: 's', responded_by: by });
    await append('user_input_decision', { kind: 'action', title: 'a', decision: 'done' });

    const reader = { kind: 'user', userId } as const;
    const seen: string[] = [];
    let page = await decisionPage(store, reader, { limit: 1 });
    for (;;) {
      expect(page.rows).toHaveLength(1);
      seen.push(...page.rows.map((row) => row.message.id));
      if (page.next === null) break;
      page = await decisionPage(store, reader, { limit: 1, before: page.next });
    }
    expect(seen).toEqual(decisions.map((row) => row.id).reverse());

    const forms = await decisionPage(store, reader, { limit: 5, filter: { kind: 'form' } });
    expect(forms.rows.map((row) => row.message.id)).toEqual([decisions[2]?.id]);
    const agent = { kind: 'agent', sessionId: seeded.session.id } as const;
    expect((await decisionPage(store, agent, { limit: 5 })).rows).toHaveLength(3);
  });

  it('orders and filters by when each was decided, not when its row was last written', async () => {
    const by = { user_id: 'u', name: 'Ada', surface: 'web' };
    const question = { prompt: 'Which?', options: [] };
    const answered = async () => {
      clock.advance(60_000);
      const at = clock.timestamp();
      const row = await append('clarification_request', {
        question,
        status: 'answered',
        responded_at: at,
        responded_by: by,
      });
      return { row, at };
    };
    const earlier = await answered();
    const later = await answered();
    // The earlier answer reaches its agent, back hours later: its row is written again.
    clock.advance(3 * 60 * 60_000);
    await store.db
      .updateTable('task_session_messages')
      .set({ updated_at: clock.timestamp() })
      .where('id', '=', earlier.row.id)
      .execute();

    const reader = { kind: 'user', userId } as const;
    const ids = (page: { rows: { message: { id: string } }[] }) =>
      page.rows.map((row) => row.message.id);
    expect(ids(await decisionPage(store, reader, { limit: 5 }))).toEqual([
      later.row.id,
      earlier.row.id,
    ]);
    const first = await decisionPage(store, reader, { limit: 1 });
    expect(ids(first)).toEqual([later.row.id]);
    const rest = await decisionPage(store, reader, {
      limit: 1,
      before: first.next ?? undefined,
    });
    expect(ids(rest)).toEqual([earlier.row.id]);
    const window = { since: earlier.at, until: later.at };
    expect(ids(await decisionPage(store, reader, { limit: 5, filter: window }))).toEqual([
      earlier.row.id,
    ]);
  });
});
