import type { KyselyPlugin } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EXTERNAL_AGENT_PROFILE } from '../../src/agents/index.js';
import type { Principal } from '../../src/auth/index.js';
import {
  addWorkspaceMember,
  appendMessage,
  bundleForPrincipal,
  canSeeSession,
  completeTurn,
  createUser,
  createSession,
  currentTurn,
  getSession,
  getTask,
  getTurn,
  listSessions,
  listTasks,
  createTask,
  createWorkspace,
  taskPage,
  type TaskCursor,
  messagesByPendingId,
  openStore,
  setSessionState,
  transcriptPage,
  type Store,
  type TaskSessionTurnsRow,
} from '../../src/store/index.js';
import { parseTimestamp } from '../../src/support/clock.js';
import { findExternalSession } from '../../src/turns/index.js';
import { DRIVERS, freshDatabase, type TestDatabase } from '../support/databases.js';
import { fakeClock, sequentialIds } from '../support/fakes.js';
import { bundleRows, seedSession } from '../support/seed.js';

describe.each(DRIVERS)('repositories on %s', (driver) => {
  let database: TestDatabase;
  let store: Store;

  beforeEach(async () => {
    database = await freshDatabase(driver, { migrated: true });
    store = await openStore(database.target, { clock: fakeClock(), ids: sequentialIds() });
  });

  afterEach(async () => {
    await store.close();
    await database.dispose();
  });

  it('creates and reads tasks and sessions', async () => {
    const seeded = await seedSession(store, 'write the parser');
    const second = await createSession(store, { taskId: seeded.task.id, agentProfile: 'codex' });

    expect(await getTask(store, seeded.task.id)).toEqual(seeded.task);
    expect(await listTasks(store, [seeded.task.workspace_id])).toEqual([seeded.task]);
    expect(await listTasks(store, [])).toEqual([]);
    expect(await getSession(store, seeded.session.id)).toEqual(seeded.session);
    expect(await listSessions(store, seeded.task.id)).toEqual([seeded.session, second]);
    expect(await getSession(store, 'missing')).toBeUndefined();
  });

  it('pages the tasks of given workspaces oldest first, by a cursor, within a bound', async () => {
    const first = await seedSession(store, 'one');
    const second = await seedSession(store, 'two');
    const elsewhere = await seedSession(store, 'not mine');
    const mine = [first.task.workspace_id, second.task.workspace_id];
    const more = [];
    for (const [index, workspaceId] of [...mine, ...mine].entries()) {
      more.push(await createTask(store, { workspaceId, title: `more ${index}` }));
    }
    const expected = [first.task, second.task, ...more].map((task) => task.id);

    const seen: string[] = [];
    let after: TaskCursor | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = await taskPage(store, mine, { after, limit: 4 });
      expect(page.tasks.length).toBeLessThanOrEqual(4);
      seen.push(...page.tasks.map((task) => task.id));
      if (page.next === null) break;
      after = page.next;
    }
    expect(seen).toEqual(expected);
    expect(seen).not.toContain(elsewhere.task.id);
    // A limit past the bound is the bound; none is no list.
    expect((await taskPage(store, mine, { limit: 10_000 })).tasks).toHaveLength(expected.length);
    expect(await taskPage(store, [], { limit: 4 })).toEqual({ tasks: [], next: null });
  });

  it('moves session state with a new revision and a later row version', async () => {
    const { session } = await seedSession(store);
    const running = await setSessionState(store, session.id, 'running');
    const waiting = await setSessionState(store, session.id, 'waiting_for_input');

    expect(running).toMatchObject({ state: 'running', revision: 1 });
    expect(waiting).toMatchObject({ state: 'waiting_for_input', revision: 2 });
    expect((waiting?.updated_at ?? '') > (running?.updated_at ?? '')).toBe(true);
    expect(await setSessionState(store, 'missing', 'running')).toBeUndefined();
  });

  it('writes RFC 3339 versions with nine fractional digits, strictly increasing', async () => {
    // The fake clock stands still: versions must still move forward.
    const seeded = await seedSession(store);
    const rows = [seeded.task, seeded.session, seeded.turn];
    for (const row of rows) {
      expect(row.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}Z$/);
    }
    const versions = rows.map((row) => parseTimestamp(row.updated_at) ?? 0n);
    expect(versions).toEqual([...versions].sort((a, b) => (a < b ? -1 : 1)));
    expect(new Set(versions).size).toBe(versions.length);
  });

  describe('current turn', () => {
    async function insertTurn(
      seeded: Awaited<ReturnType<typeof seedSession>>,
      row: Partial<TaskSessionTurnsRow> & { id: string; started_at: string },
    ): Promise<void> {
      await store.db
        .insertInto('task_session_turns')
        .values({
          task_session_id: seeded.session.id,
          task_id: seeded.task.id,
          completed_at: null,
          metadata: '{}',
          created_at: row.started_at,
          updated_at: row.started_at,
          ...row,
        })
        .execute();
    }

    it('is the newest turn by started_at, then created_at, then id', async () => {
      const seeded = await seedSession(store);
      const later = '2027-01-01T00:00:00.000000002Z';
      await insertTurn(seeded, { id: 'turn-b', started_at: later, created_at: later });
      await insertTurn(seeded, { id: 'turn-a', started_at: later, created_at: later });
      expect((await currentTurn(store, seeded.session.id))?.id).toBe('turn-b');

      await insertTurn(seeded, {
        id: 'turn-0',
        started_at: later,
        created_at: '2027-01-01T00:00:00.000000003Z',
      });
      expect((await currentTurn(store, seeded.session.id))?.id).toBe('turn-0');

      await insertTurn(seeded, {
        id: 'turn-early-start',
        started_at: '2026-06-01T00:00:00.000000000Z',
        created_at: '2028-01-01T00:00:00.000000000Z',
      });
      expect((await currentTurn(store, seeded.session.id))?.id).toBe('turn-0');
    });

    it('skips a pure reservation until it is attempted or a message refers to it', async () => {
      const seeded = await seedSession(store);
      const reservedAt = '2027-01-01T00:00:00.000000000Z';
      await insertTurn(seeded, {
        id: 'reserved',
        started_at: reservedAt,
        metadata: JSON.stringify({ prompt_dispatch_pending: true }),
      });
      expect((await currentTurn(store, seeded.session.id))?.id).toBe(seeded.turn.id);

      await store.db
        .updateTable('task_session_turns')
        .set({
          metadata: JSON.stringify({
            prompt_dispatch_pending: true,
            prompt_dispatch_attempted: true,
          }),
        })
        .where('id', '=', 'reserved')
        .execute();
      expect((await currentTurn(store, seeded.session.id))?.id).toBe('reserved');

      await insertTurn(seeded, {
        id: 'reserved-2',
        started_at: '2027-02-01T00:00:00.000000000Z',
        metadata: JSON.stringify({ prompt_dispatch_pending: 'true' }),
      });
      expect((await currentTurn(store, seeded.session.id))?.id).toBe('reserved');
      await appendMessage(store, {
        sessionId: seeded.session.id,
        taskId: seeded.task.id,
        turnId: 'reserved-2',
        authorType: 'user',
        type: 'message',
        content: 'resume',
      });
      expect((await currentTurn(store, seeded.session.id))?.id).toBe('reserved-2');
    });

    it('accepts the truthy spellings of a flag', async () => {
      const seeded = await seedSession(store);
      for (const [index, flag] of [true, 'true', '1', 1].entries()) {
        await insertTurn(seeded, {
          id: `reserved-${index}`,
          started_at: `2027-01-01T00:00:00.00000000${index}Z`,
          metadata: JSON.stringify({ prompt_dispatch_pending: flag }),
        });
      }
      expect((await currentTurn(store, seeded.session.id))?.id).toBe(seeded.turn.id);
    });

    it('is undefined for a session without turns, and completing a turn keeps it current', async () => {
      const seeded = await seedSession(store);
      const bare = await createSession(store, { taskId: seeded.task.id, agentProfile: 'demo' });
      expect(await currentTurn(store, bare.id)).toBeUndefined();

      const completed = await completeTurn(store, seeded.turn.id);
      expect(completed?.completed_at).not.toBeNull();
      expect(await completeTurn(store, seeded.turn.id)).toBeUndefined();
      expect(await currentTurn(store, seeded.session.id)).toEqual(completed);
      expect(await getTurn(store, seeded.turn.id)).toEqual(completed);
    });
  });

  it('reads a bundle by pending ID in created_at, id order, whatever session it is in', async () => {
    const first = await seedSession(store, 'first');
    const other = await seedSession(store, 'other');
    const written = [];
    for (const row of bundleRows(first, 'bundle-1', 3))
      written.push(await appendMessage(store, row));
    for (const row of bundleRows(other, 'bundle-2', 2)) await appendMessage(store, row);

    const bundle = await messagesByPendingId(store, 'bundle-1');
    expect(bundle).toEqual(written);
    expect(bundle.map((row) => row.metadata.question_id)).toEqual(['q1', 'q2', 'q3']);
    expect(bundle.map((row) => row.requests_input)).toEqual([false, false, true]);
    expect(await messagesByPendingId(store, 'unknown')).toEqual([]);
  });

  it('reads a bundle with exactly the visibility canSeeSession gives every principal, and its session profile', async () => {
    const mine = await seedSession(store, 'mine');
    const other = await seedSession(store, 'other');
    const written = [];
    for (const row of bundleRows(mine, 'bundle-1', 2))
      written.push(await appendMessage(store, row));
    const member = await createUser(store, { name: 'member' });
    const outsider = await createUser(store, { name: 'outsider' });
    const admin = await createUser(store, { name: 'admin', isAdmin: true });
    await addWorkspaceMember(store, {
      workspaceId: mine.task.workspace_id,
      userId: member.id,
      role: 'member',
    });
    const principals: Principal[] = [
      { kind: 'user', userId: member.id, name: 'Test user', isAdmin: false },
      { kind: 'user', userId: outsider.id, name: 'Test user', isAdmin: false },
      { kind: 'user', userId: admin.id, name: 'Test user', isAdmin: true },
      { kind: 'agent', userId: member.id, sessionId: mine.session.id },
      { kind: 'agent', userId: member.id, sessionId: other.session.id },
    ];
    const seen = [];
    for (const principal of principals) {
      const read = await bundleForPrincipal(store, principal, 'bundle-1');
      expect(read.rows).toEqual(written);
      expect(read.visible).toBe(await canSeeSession(store, principal, mine.session.id));
      // The rows' own session's profile, whoever reads: delivery needs no second read.
      expect(read.agentProfile).toBe(mine.session.agent_profile);
      seen.push(read.visible);
      expect(await bundleForPrincipal(store, principal, 'unknown')).toEqual({
        rows: [],
        visible: false,
      });
    }
    expect(seen).toEqual([true, false, false, true, false]);
  });

  it('orders bundle rows with equal created_at by id', async () => {
    const seeded = await seedSession(store);
    const at = '2027-01-01T00:00:00.000000000Z';
    for (const id of ['m-3', 'm-1', 'm-2']) {
      await store.db
        .insertInto('task_session_messages')
        .values({
          id,
          task_session_id: seeded.session.id,
          task_id: seeded.task.id,
          turn_id: seeded.turn.id,
          author_type: 'agent',
          type: 'clarification_request',
          content: id,
          metadata: JSON.stringify({ pending_id: 'tied' }),
          requests_input: 0,
          admission_key: null,
          created_at: at,
          updated_at: at,
        })
        .execute();
    }
    expect((await messagesByPendingId(store, 'tied')).map((row) => row.id)).toEqual([
      'm-1',
      'm-2',
      'm-3',
    ]);
  });

  it('pages a transcript oldest first without gaps or repeats', async () => {
    const seeded = await seedSession(store);
    const written = [];
    for (let index = 0; index < 7; index++) {
      written.push(
        await appendMessage(store, {
          sessionId: seeded.session.id,
          taskId: seeded.task.id,
          turnId: seeded.turn.id,
          authorType: index % 2 === 0 ? 'user' : 'agent',
          type: 'message',
          content: `line ${index}`,
        }),
      );
    }
    const pages = [];
    let page = await transcriptPage(store, seeded.session.id, { limit: 3 });
    pages.push(page.messages);
    while (page.next) {
      page = await transcriptPage(store, seeded.session.id, { after: page.next, limit: 3 });
      pages.push(page.messages);
    }
    expect(pages.map((messages) => messages.length)).toEqual([3, 3, 1]);
    expect(pages.flat()).toEqual(written);
    const empty = await transcriptPage(store, 'missing', { limit: 3 });
    expect(empty).toEqual({ messages: [], next: null });
  });

  it('refuses a second message with the same admission key in a session, not across sessions', async () => {
    const seeded = await seedSession(store);
    const other = await seedSession(store, 'other');
    const message = {
      sessionId: seeded.session.id,
      taskId: seeded.task.id,
      turnId: seeded.turn.id,
      authorType: 'user' as const,
      type: 'message',
      content: 'hello',
      admissionKey: 'key-1',
    };
    await appendMessage(store, message);
    await expect(appendMessage(store, message)).rejects.toThrow();
    await appendMessage(store, {
      ...message,
      sessionId: other.session.id,
      taskId: other.task.id,
      turnId: other.turn.id,
    });
    // Keyless messages never collide.
    await appendMessage(store, { ...message, admissionKey: undefined });
    await appendMessage(store, { ...message, admissionKey: undefined });
    const page = await transcriptPage(store, seeded.session.id, { limit: 10 });
    expect(page.messages).toHaveLength(3);
  });

  it('rolls back a transaction that throws', async () => {
    const seeded = await seedSession(store);
    await expect(
      store.transaction(async (tx) => {
        await setSessionState(tx, seeded.session.id, 'running');
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect((await getSession(store, seeded.session.id))?.state).toBe('idle');
  });

  it('finds a person’s live external session for a client name in one read, however many tasks they have', async () => {
    const person = await createUser(store, { name: 'Ada' });
    const [home, other, foreign] = await Promise.all(
      ['home', 'other', 'foreign'].map((name) => createWorkspace(store, { name })),
    );
    for (const workspace of [home, other]) {
      await addWorkspaceMember(store, {
        workspaceId: workspace?.id ?? '',
        userId: person.id,
        role: 'member',
      });
    }
    const taskOf = (workspace: { id: string } | undefined, title: string, createdBy = person.id) =>
      createTask(store, { workspaceId: workspace?.id ?? '', title, createdBy });
    const sessionOf = async (taskId: string, state: 'running' | 'completed', profile?: string) => {
      const made = await createSession(store, {
        taskId,
        agentProfile: profile ?? EXTERNAL_AGENT_PROFILE,
      });
      await setSessionState(store, made.id, state);
      return made.id;
    };
    const found = (title: string, userId = person.id) => findExternalSession(store, userId, title);

    const task = await taskOf(home, 'Claude Code');
    await sessionOf(task.id, 'running');
    const live = await sessionOf(task.id, 'running');
    await sessionOf(task.id, 'completed');
    // Newer tasks of that name that hold none, or are not the person's to ask in, or not theirs.
    await sessionOf((await taskOf(other, 'Claude Code')).id, 'running', 'demo');
    await sessionOf((await taskOf(other, 'Claude Code')).id, 'completed');
    await sessionOf((await taskOf(foreign, 'Claude Code')).id, 'running');
    const colleague = await createUser(store, { name: 'Grace' });
    await sessionOf((await taskOf(home, 'Claude Code', colleague.id)).id, 'running');
    await sessionOf((await taskOf(home, 'Codex')).id, 'running');

    expect(await found('Claude Code')).toEqual({ ok: true, sessionId: live });
    expect(await found('Cursor')).toEqual({ ok: true });
    expect(await found('Claude Code', colleague.id)).toEqual({ ok: false, code: 'no_workspace' });

    // What the lookup reads does not grow with the person's other tasks.
    const read = { statements: 0, rows: 0 };
    const counting: KyselyPlugin = {
      transformQuery: ({ node }) => node,
      transformResult: ({ result }) => {
        read.statements++;
        read.rows += result.rows.length;
        return Promise.resolve(result);
      },
    };
    const counted = await openStore(database.target, { plugins: [counting] });
    try {
      const lookUp = async () => {
        Object.assign(read, { statements: 0, rows: 0 });
        expect(await findExternalSession(counted, person.id, 'Claude Code')).toEqual({
          ok: true,
          sessionId: live,
        });
        return { ...read };
      };
      const before = await lookUp();
      expect(before).toEqual({ statements: 2, rows: 3 });
      for (let index = 0; index < 12; index++) await taskOf(home, `task ${index}`);
      expect(await lookUp()).toEqual(before);
    } finally {
      await counted.close();
    }
  });

  it('enforces foreign keys', async () => {
    await expect(
      createSession(store, { taskId: 'no-such-task', agentProfile: 'demo' }),
    ).rejects.toThrow();
  });
});
