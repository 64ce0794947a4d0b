/** Builds the rows most store tests stand on: a workspace, a task, a session and a turn. */
import type { Responder } from '../../src/wire/index.js';
import {
  addWorkspaceMember,
  createSession,
  createTask,
  createUser,
  createWorkspace,
  firstAdmin,
  listMemberWorkspaces,
  setSessionState,
  startTurn,
  type RepoContext,
  type Store,
  type SessionRecord,
  type TaskRecord,
  type TurnRecord,
} from '../../src/store/index.js';

export interface Seeded {
  task: TaskRecord;
  session: SessionRecord;
  turn: TurnRecord;
}

export async function seedSession(ctx: RepoContext, title = 'task'): Promise<Seeded> {
  const workspace = await createWorkspace(ctx, { name: `${title} workspace` });
  const task = await createTask(ctx, { workspaceId: workspace.id, title });
  const session = await createSession(ctx, { taskId: task.id, agentProfile: 'demo' });
  const turn = await startTurn(ctx, { sessionId: session.id, taskId: task.id });
  return { task, session, turn };
}

/** A running session with a current turn in the first admin's workspace, as a server's admin sees it. */
export async function seedAdminSession(ctx: RepoContext, title = 'task'): Promise<string> {
  const admin = await firstAdmin(ctx);
  const [workspace] = admin ? await listMemberWorkspaces(ctx, admin.id) : [];
  if (!admin || !workspace) throw new Error('no admin workspace');
  const task = await createTask(ctx, { workspaceId: workspace.id, title, createdBy: admin.id });
  const session = await createSession(ctx, { taskId: task.id, agentProfile: 'demo' });
  await startTurn(ctx, { sessionId: session.id, taskId: task.id });
  await setSessionState(ctx, session.id, 'running');
  return session.id;
}

/**
 * A new member of the workspace, as a decision records them: a claim made
 * straight in the store stands only while its responder belongs there.
 */
export async function seedResponder(ctx: RepoContext, workspaceId: string): Promise<Responder> {
  const user = await createUser(ctx, { name: 'Ada' });
  await addWorkspaceMember(ctx, { workspaceId, userId: user.id, role: 'member' });
  return { user_id: user.id, name: user.name, surface: 'rest' };
}

/** The rows of one clarification bundle, as later issues will write them. */
export function bundleRows(seeded: Seeded, pendingId: string, questions: number) {
  return Array.from({ length: questions }, (_, index) => ({
    sessionId: seeded.session.id,
    taskId: seeded.task.id,
    turnId: seeded.turn.id,
    authorType: 'agent' as const,
    type: 'clarification_request',
    content: `question ${index + 1}`,
    metadata: {
      pending_id: pendingId,
      question_id: `q${index + 1}`,
      question_index: index,
      question_total: questions,
      status: 'pending',
    },
    requestsInput: index === questions - 1,
  }));
}

/**
 * `count` agent messages appended to a session's transcript in multi-row
 * batches (a long day's transcript without thousands of HTTP calls): row `n`
 * reads `${prefix} n`, all in the session's newest turn, `equalRuns` rows
 * sharing each timestamp so page boundaries fall inside runs of equal ones.
 * Their times start an hour before the store's clock, so what the session
 * writes live comes after them.
 */
export async function seedTranscript(
  store: Store,
  sessionId: string,
  count: number,
  { prefix = 'line', equalRuns = 1 }: { prefix?: string; equalRuns?: number } = {},
): Promise<void> {
  const session = await store.db
    .selectFrom('task_sessions')
    .select('task_id')
    .where('id', '=', sessionId)
    .executeTakeFirstOrThrow();
  const turn = await store.db
    .selectFrom('task_session_turns')
    .select('id')
    .where('task_session_id', '=', sessionId)
    .orderBy('created_at', 'desc')
    .executeTakeFirstOrThrow();
  const hourAgo = new Date(
    Math.floor(Date.parse(store.clock.timestamp()) / 1000) * 1000 - 3_600_000,
  );
  const second = hourAgo.toISOString().slice(0, 19);
  for (let start = 0; start < count; start += SEED_BATCH_ROWS) {
    const rows = [];
    for (let index = start; index < Math.min(count, start + SEED_BATCH_ROWS); index++) {
      const run = Math.floor(index / equalRuns);
      const at = `${second}.${String(run).padStart(9, '0')}Z`;
      rows.push({
        id: `${sessionId}-${String(index).padStart(7, '0')}`,
        task_session_id: sessionId,
        task_id: session.task_id,
        turn_id: turn.id,
        author_type: 'agent',
        type: 'message',
        content: `${prefix} ${index}`,
        metadata: '{}',
        requests_input: 0,
        admission_key: null,
        created_at: at,
        updated_at: at,
      });
    }
    await store.db.insertInto('task_session_messages').values(rows).execute();
  }
}

const SEED_BATCH_ROWS = 500;
