/**
 * Tasks and sessions as people manage them: create (with a first prompt),
 * list, cancel the running turn, delete. Deleting stops the agent and settles
 * what is live in memory before any row goes.
 */
import type { Principal } from '../auth/index.js';
import {
  canSeeSession,
  canSeeTask,
  createSession,
  createTask,
  deleteSessionRow,
  deleteTaskRow,
  getSession,
  getTask,
  getWorkspace,
  listMemberWorkspaces,
  listSessions,
  listTasks,
  memberWorkspaceIds,
  type SessionRecord,
  type TaskRecord,
} from '../store/index.js';
import { admitMessage, type AdmissionResult } from './admission.js';
import type { TurnsDeps } from './context.js';

export type CreateTaskResult =
  | { ok: true; task: TaskRecord; session: SessionRecord; admission: AdmissionResult | null }
  | { ok: false; code: 'not_found' | 'forbidden' | 'unknown_profile' };

export async function createTaskWithSession(
  deps: TurnsDeps,
  principal: Principal,
  input: { title: string; workspaceId?: string; agentProfile?: string; prompt?: string },
): Promise<CreateTaskResult> {
  if (principal.kind !== 'user') return { ok: false, code: 'forbidden' };
  const profile = input.agentProfile ?? deps.defaultProfile;
  if (!deps.profiles.has(profile)) return { ok: false, code: 'unknown_profile' };
  const workspaceId =
    input.workspaceId ?? (await listMemberWorkspaces(deps.store, principal.userId))[0]?.id;
  const member = await memberWorkspaceIds(deps.store, principal.userId);
  if (
    !workspaceId ||
    !member.includes(workspaceId) ||
    !(await getWorkspace(deps.store, workspaceId))
  ) {
    return { ok: false, code: 'not_found' };
  }
  const created = await deps.store.transaction(async (tx) => {
    const task = await createTask(tx, {
      workspaceId,
      title: input.title,
      createdBy: principal.userId,
    });
    const session = await createSession(tx, { taskId: task.id, agentProfile: profile });
    return { task, session };
  });
  const admission =
    input.prompt === undefined
      ? null
      : await admitMessage(deps, principal, created.session.id, {
          text: input.prompt,
          admissionKey: `task-prompt:${created.task.id}`,
        });
  const session = (await getSession(deps.store, created.session.id)) ?? created.session;
  return { ok: true, task: created.task, session, admission };
}

export async function visibleTasks(deps: TurnsDeps, principal: Principal): Promise<TaskRecord[]> {
  if (principal.kind === 'agent') {
    const session = await getSession(deps.store, principal.sessionId);
    const task = session && (await getTask(deps.store, session.task_id));
    return task ? [task] : [];
  }
  return listTasks(deps.store, await memberWorkspaceIds(deps.store, principal.userId));
}

export async function visibleSessions(
  deps: TurnsDeps,
  principal: Principal,
  taskId: string,
): Promise<SessionRecord[] | undefined> {
  if (!(await canSeeTask(deps.store, principal, taskId))) return undefined;
  const sessions = await listSessions(deps.store, taskId);
  return principal.kind === 'agent'
    ? sessions.filter((session) => session.id === principal.sessionId)
    : sessions;
}

/** Asks the agent to stop its running turn; the turn ends by the agent's report. */
export async function cancelTurn(
  deps: TurnsDeps,
  principal: Principal,
  sessionId: string,
): Promise<boolean> {
  if (!(await canSeeSession(deps.store, principal, sessionId))) return false;
  if (deps.host.isStarted(sessionId)) await deps.host.cancel(sessionId);
  return true;
}

export async function deleteSession(
  deps: TurnsDeps,
  principal: Principal,
  sessionId: string,
): Promise<boolean> {
  if (principal.kind !== 'user' || !(await canSeeSession(deps.store, principal, sessionId))) {
    return false;
  }
  await settleSession(deps, sessionId);
  return deps.store.transaction((tx) => deleteSessionRow(tx, sessionId));
}

export async function deleteTask(
  deps: TurnsDeps,
  principal: Principal,
  taskId: string,
): Promise<boolean> {
  if (principal.kind !== 'user' || !(await canSeeTask(deps.store, principal, taskId))) return false;
  for (const session of await listSessions(deps.store, taskId))
    await settleSession(deps, session.id);
  return deps.store.transaction((tx) => deleteTaskRow(tx, taskId));
}

/** Settles memory-owned requests, stops the agent and ends live waits before the rows go. */
async function settleSession(deps: TurnsDeps, sessionId: string): Promise<void> {
  deps.userInputs.sessionDeleted(sessionId);
  if (deps.host.isStarted(sessionId)) await deps.host.stop(sessionId);
  await deps.clarification.expireSession(sessionId);
}
