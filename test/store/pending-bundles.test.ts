/**
 * The inbox listing on both dialects: active bundles only, oldest first,
 * keyset pages without gaps or repeats, and visibility by workspace
 * membership (users) or own session (agents).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/auth/principal.js';
import {
  decodePendingCursor,
  encodePendingCursor,
  listPendingBundles,
  type PendingPage,
} from '../../src/clarification/index.js';
import {
  addWorkspaceMember,
  appendMessage,
  claimBundle,
  createSession,
  createUser,
  detachSessionRows,
  messagesByPendingId,
  openStore,
  setSessionState,
  startTurn,
  type Store,
} from '../../src/store/index.js';
import { DRIVERS, freshDatabase, type TestDatabase } from '../support/databases.js';
import { fakeClock, sequentialIds } from '../support/fakes.js';
import { seedSession, type Seeded } from '../support/seed.js';

describe.each(DRIVERS)('pending bundles on %s', (driver) => {
  let database: TestDatabase;
  let store: Store;
  let first: Seeded;
  let sibling: Seeded;
  let elsewhere: Seeded;
  let member: Principal;
  let outsider: Principal;
  let bundleCounter = 0;

  beforeEach(async () => {
    database = await freshDatabase(driver, { migrated: true });
    store = await openStore(database.target, { clock: fakeClock(), ids: sequentialIds() });
    first = await seedSession(store, 'first');
    // A second session of the same task: same workspace, different session.
    const session = await createSession(store, { taskId: first.task.id, agentProfile: 'demo' });
    const turn = await startTurn(store, { sessionId: session.id, taskId: first.task.id });
    sibling = { task: first.task, session, turn };
    elsewhere = await seedSession(store, 'elsewhere');
    const user = await createUser(store, { name: 'member' });
    const stranger = await createUser(store, { name: 'outsider' });
    await addWorkspaceMember(store, {
      workspaceId: first.task.workspace_id,
      userId: user.id,
      role: 'member',
    });
    member = { kind: 'user', userId: user.id, name: 'Test user', isAdmin: false };
    outsider = { kind: 'user', userId: stranger.id, name: 'Test user', isAdmin: false };
  });

  afterEach(async () => {
    await store.close();
    await database.dispose();
  });

  /** Writes a bundle of `questions` rows the way the service does; returns its pending ID. */
  async function ask(seeded: Seeded, questions = 1, turnId = seeded.turn.id): Promise<string> {
    const pendingId = `pending-${String(++bundleCounter).padStart(3, '0')}`;
    for (let index = 0; index < questions; index++) {
      const questionId = `q${index + 1}`;
      await appendMessage(store, {
        sessionId: seeded.session.id,
        taskId: seeded.task.id,
        turnId,
        authorType: 'agent',
        type: 'clarification_request',
        content: `prompt ${questionId}`,
        requestsInput: index === questions - 1,
        metadata: {
          pending_id: pendingId,
          question_id: questionId,
          question: {
            id: questionId,
            title: `Title ${questionId}`,
            prompt: `prompt ${questionId}`,
            multi_select: index === 1,
            options: [
              { option_id: `${questionId}_opt1`, label: 'Yes', description: 'Do it' },
              { option_id: `${questionId}_opt2`, label: 'No', description: 'Leave it' },
            ],
          },
          question_index: index,
          question_total: questions,
          context: `context of ${pendingId}`,
          status: 'pending',
        },
      });
    }
    return pendingId;
  }

  async function list(principal: Principal, cursor?: string, limit?: number) {
    const result = await listPendingBundles(store, principal, { cursor, limit });
    if (!result.ok) throw new Error(JSON.stringify(result.details));
    return result.page;
  }

  async function everything(principal: Principal, limit: number): Promise<string[][]> {
    const pages: string[][] = [];
    let cursor: string | undefined;
    for (;;) {
      const page: PendingPage = await list(principal, cursor, limit);
      pages.push(page.pending.map((bundle) => bundle.pending_id));
      if (page.next_cursor === null) return pages;
      cursor = page.next_cursor;
    }
  }

  it('lists a bundle in the wire shape, questions from its rows', async () => {
    const pendingId = await ask(first, 2);
    const page = await list(member);
    expect(page).toEqual({
      next_cursor: null,
      pending: [
        {
          pending_id: pendingId,
          task_id: first.task.id,
          session_id: first.session.id,
          turn_id: first.turn.id,
          created_at: expect.stringMatching(/\.\d{9}Z$/) as unknown,
          context: `context of ${pendingId}`,
          detached: false,
          questions: [1, 2].map((n) => ({
            question_id: `q${n}`,
            title: `Title q${n}`,
            prompt: `prompt q${n}`,
            multi_select: n === 2,
            status: 'pending',
            options: [
              { option_id: `q${n}_opt1`, label: 'Yes', description: 'Do it' },
              { option_id: `q${n}_opt2`, label: 'No', description: 'Leave it' },
            ],
          })),
        },
      ],
    });
  });

  it('orders oldest first and pages without gaps or repeats', async () => {
    const asked: string[] = [];
    for (let index = 0; index < 7; index++) {
      asked.push(await ask(index % 2 === 0 ? first : sibling, 1 + (index % 3)));
    }
    for (const limit of [1, 2, 3, 7, 50]) {
      const pages = await everything(member, limit);
      expect(pages.flat()).toEqual(asked);
      expect(pages.slice(0, -1).every((page) => page.length === limit)).toBe(true);
    }
    // A bundle answered between two reads neither shifts nor repeats the rest.
    const page1 = await list(member, undefined, 3);
    await claim(asked[1] ?? '');
    const page2 = await list(member, page1.next_cursor ?? undefined, 3);
    expect(page2.pending.map((bundle) => bundle.pending_id)).toEqual(asked.slice(3, 6));
  });

  it('breaks ties on created_at by pending ID', async () => {
    const a = await ask(first);
    const b = await ask(sibling);
    const c = await ask(first);
    // Give all three bundles one creation time: the pending ID decides.
    await store.db
      .updateTable('task_session_messages')
      .set({ created_at: '2026-01-01T00:00:00.000000500Z' })
      .execute();
    const pages = await everything(member, 1);
    expect(pages).toEqual([[a], [b], [c]]);
  });

  it('shows an outsider nothing and an agent only its own session', async () => {
    const mine = await ask(first);
    await ask(sibling);
    await ask(elsewhere);
    expect((await list(outsider)).pending).toEqual([]);
    const agent: Principal = { kind: 'agent', userId: 'x', sessionId: first.session.id };
    expect((await list(agent)).pending.map((bundle) => bundle.pending_id)).toEqual([mine]);
    expect((await list(member)).pending).toHaveLength(2);
  });

  it('leaves out superseded, expired, answered and rejected bundles', async () => {
    const superseded = await ask(first);
    await startTurn(store, { sessionId: first.session.id, taskId: first.task.id });
    const expired = await ask(sibling);
    await setSessionState(store, sibling.session.id, 'completed');
    const other = await seedSession(store, 'second workspace task');
    await addWorkspaceMember(store, {
      workspaceId: other.task.workspace_id,
      userId: member.kind === 'user' ? member.userId : '',
      role: 'member',
    });
    const answered = await ask(other);
    await claim(answered);
    const rejected = await ask(other);
    await claim(rejected, 'rejected');
    const detached = await ask(other);
    await detachSessionRows(store, other.session.id);

    const page = await list(member);
    expect(page.pending.map((bundle) => bundle.pending_id)).toEqual([detached]);
    expect(page.pending[0]?.detached).toBe(true);
    for (const gone of [superseded, expired, answered, rejected]) {
      expect(page.pending.some((bundle) => bundle.pending_id === gone)).toBe(false);
    }
  });

  it('refuses a cursor it did not write and an out-of-range limit', async () => {
    for (const cursor of ['', 'not a cursor', 'bm9waXBl', encodeURIComponent('x|y'), 'YQ']) {
      expect(await listPendingBundles(store, member, { cursor })).toEqual({
        ok: false,
        code: 'invalid_request',
        message: 'invalid cursor',
        details: [{ path: 'cursor', message: 'is not a cursor from this API' }],
      });
    }
    for (const limit of [0, -1, 201, 1.5]) {
      const result = await listPendingBundles(store, member, { limit });
      expect(result).toMatchObject({ ok: false, details: [{ path: 'limit' }] });
    }
    const cursor = { createdAt: '2026-01-01T00:00:00.000000001Z', pendingId: 'p-1' };
    expect(decodePendingCursor(encodePendingCursor(cursor))).toEqual(cursor);
    expect(decodePendingCursor(`${encodePendingCursor(cursor)}=`)).toBeUndefined();
  });

  async function claim(pendingId: string, status: 'answered' | 'rejected' = 'answered') {
    // The session and turn the resolver's identity read would find.
    const [first] = await messagesByPendingId(store, pendingId);
    const rows = await claimBundle(store, {
      pendingId,
      sessionId: first?.task_session_id ?? '',
      turnId: first?.turn_id ?? '',
      status,
      responses: new Map(
        status === 'answered'
          ? [['q1', { question_id: 'q1', selected_options: ['q1_opt1'], custom_text: '' }]]
          : [],
      ),
      rejectReason: '',
      respondedAt: '2026-01-01T00:00:01.000000000Z',
      respondedBy: { user_id: member.userId, name: 'Ada', surface: 'rest' },
    });
    expect(rows.length).toBeGreaterThan(0);
  }
});
