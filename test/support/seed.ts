/** Builds the rows most store tests stand on: a workspace, a task, a session and a turn. */
import {
  createSession,
  createTask,
  createWorkspace,
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
