/** Builds the rows most store tests stand on: a workspace, a task, a session and a turn. */
import {
  createSession,
  createTask,
  createWorkspace,
  firstAdmin,
  listMemberWorkspaces,
  setSessionState,
  startTurn,
  type RepoContext,
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
