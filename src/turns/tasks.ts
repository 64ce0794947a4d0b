/**
 * Tasks and sessions as people manage them: create (with a first prompt),
 * list, cancel the running turn, delete. Deleting stops the agent before any
 * row goes, and closes what is open in the session (its questions' waits, its
 * user-input requests) once the rows' delete committed; its subscribers hear
 * that the session (or task) is gone with that commit, one event per session
 * (a task with none left goes unannounced). A delete that fails after the
 * stop leaves the session as the stop would have: its turn cancelled, idle,
 * its questions answerable and its requests where they were.
 */
import { stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { responderOf, type DecisionSurface, type Principal } from '../auth/index.js';
import {
  canSeeSession,
  canSeeTask,
  createSession,
  createTask,
  deleteSessionRow,
  deleteTaskRow,
  currentTurn,
  getSession,
  getTask,
  getWorkspace,
  listMemberWorkspaces,
  listSessions,
  listSessionsReadingClarification,
  taskPage,
  type TaskCursor,
  type TaskPage,
  memberWorkspaceIds,
  requestTurnCancel,
  type RepoContext,
  type SessionRecord,
  type TaskRecord,
} from '../store/index.js';
import type { SessionsDeleted } from '../events/index.js';
import { admitMessage, type MessageAdmission } from './admission.js';
import type { AgentSlot } from './agent-quota.js';
import type { TurnsDeps } from './context.js';
import { pause, type Timers } from '../support/index.js';
import { CWD_CHECK_MAX_MS } from '../tunables.js';
import { confirmLease } from './fencing.js';
import {
  failure,
  type Failure,
  type Issue,
  type PendingAction,
  type TaskFieldProblem,
} from '../wire/index.js';

/** A session as the routes show it: its row, and what it waits on a person for, read after it. */
export interface ShownSession {
  session: SessionRecord;
  pendingAction: PendingAction;
}

export type CreateTaskResult =
  | ({ ok: true; task: TaskRecord; admission: MessageAdmission | null } & ShownSession)
  | Failure<'not_found' | 'no_workspace' | 'forbidden' | 'invalid_request' | 'quota_exceeded'>;

/** What the routes answer for a session or task the caller cannot see, or that is gone. */
export type Found<T = object> = ({ ok: true } & T) | Failure<'not_found'>;

const SESSION_NOT_FOUND = failure('not_found', 'session not found');
const TASK_NOT_FOUND = failure('not_found', 'task not found');

/** A field's problem with the code a client words it by and the English for other readers. */
function fieldIssue(path: string, code: TaskFieldProblem, message: string): Issue {
  return { path, code, message };
}

/**
 * Why `cwd` cannot be the agents' working directory, if it cannot. Off the
 * event loop and bounded: a directory on a mount that stopped answering must
 * neither block every request nor hold this one.
 */
async function cwdProblem(cwd: string, timers: Timers): Promise<Issue | undefined> {
  if (!isAbsolute(cwd)) return fieldIssue('cwd', 'cwd_not_absolute', 'must be an absolute path');
  const gaveUp = new AbortController();
  const late = pause(timers, CWD_CHECK_MAX_MS, gaveUp.signal).then(() => 'late' as const);
  try {
    const found = await Promise.race([stat(cwd), late]);
    if (found === 'late') {
      return fieldIssue(
        'cwd',
        'cwd_not_readable_in_time',
        `could not be read within ${CWD_CHECK_MAX_MS} ms`,
      );
    }
    if (found.isDirectory()) return undefined;
  } catch {
    // Missing or unreadable: the same answer for the person.
  } finally {
    gaveUp.abort();
  }
  return fieldIssue('cwd', 'cwd_not_directory', 'must be an existing directory');
}

export async function createTaskWithSession(
  deps: TurnsDeps,
  principal: Principal,
  input: {
    title: string;
    workspaceId?: string;
    agentProfile?: string;
    prompt?: string;
    cwd?: string;
  },
): Promise<CreateTaskResult> {
  if (principal.kind !== 'user') return failure('forbidden');
  const badCwd = input.cwd === undefined ? undefined : await cwdProblem(input.cwd, deps.timers);
  if (badCwd) return failure('invalid_request', 'invalid cwd', [badCwd]);
  const profile = input.agentProfile ?? deps.defaultProfile;
  if (!deps.profiles.has(profile)) {
    const known = [...deps.profiles.keys()].join(', ');
    return failure('invalid_request', 'unknown agent profile', [
      fieldIssue('agent_profile', 'unknown_profile', `must be one of ${known}`),
    ]);
  }
  const workspaceId =
    input.workspaceId ?? (await listMemberWorkspaces(deps.store, principal.userId))[0]?.id;
  // Naming no workspace while in none is the caller's state, not an unknown ID (as on MCP).
  if (!workspaceId) return failure('no_workspace');
  const member = await memberWorkspaceIds(deps.store, principal.userId);
  if (!member.includes(workspaceId) || !(await getWorkspace(deps.store, workspaceId))) {
    return failure('not_found', 'workspace not found');
  }
  // A first prompt starts the agent: its place is held before any row is written,
  // so a user at the quota gets 429 and no task. A task without a prompt starts nothing.
  const place = input.prompt === undefined ? undefined : deps.agentQuota.hold(principal.userId);
  if (place && !place.ok) return place;
  try {
    return await createWithSession(
      deps,
      principal,
      { ...input, workspaceId, profile },
      place?.slot,
    );
  } finally {
    place?.slot.release();
  }
}

async function createWithSession(
  deps: TurnsDeps,
  principal: Extract<Principal, { kind: 'user' }>,
  input: { title: string; workspaceId: string; profile: string; prompt?: string; cwd?: string },
  slot: AgentSlot | undefined,
): Promise<CreateTaskResult> {
  const { workspaceId, profile } = input;
  const created = await deps.store.transaction(async (tx) => {
    const task = await createTask(tx, {
      workspaceId,
      title: input.title,
      createdBy: principal.userId,
      ...(input.cwd === undefined ? {} : { cwd: input.cwd }),
    });
    const session = await createSession(tx, { taskId: task.id, agentProfile: profile });
    return { task, session };
  });
  slot?.bind(created.session.id);
  if (input.prompt === undefined) {
    // Nothing else will be written for it until someone sends a message: without an
    // event, other tabs and teammates would not list the task until they reconnect.
    await deps.sessions.write(created.session.id, ({ moved }) => {
      moved(created.session);
      return Promise.resolve();
    });
  }
  const admission =
    input.prompt === undefined
      ? null
      : await admitMessage(deps, principal, created.session.id, {
          text: input.prompt,
          admissionKey: `task-prompt:${created.task.id}`,
        });
  const session = (await getSession(deps.store, created.session.id)) ?? created.session;
  const pendingAction = await deps.sessions.pendingAction(session.id);
  return { ok: true, task: created.task, session, pendingAction, admission };
}

/** One page of the tasks `principal` can see, oldest first: an agent sees its session's only. */
export async function visibleTaskPage(
  deps: TurnsDeps,
  principal: Principal,
  options: { after?: TaskCursor | undefined; limit: number },
): Promise<TaskPage> {
  if (principal.kind === 'agent') {
    const session = await getSession(deps.store, principal.sessionId);
    const task = session && (await getTask(deps.store, session.task_id));
    const { after } = options;
    const past =
      task !== undefined &&
      after !== undefined &&
      (task.created_at < after.createdAt ||
        (task.created_at === after.createdAt && task.id <= after.id));
    return { tasks: task && !past ? [task] : [], next: null };
  }
  return taskPage(deps.store, await memberWorkspaceIds(deps.store, principal.userId), options);
}

export async function visibleSessions(
  deps: TurnsDeps,
  principal: Principal,
  taskId: string,
): Promise<Found<{ sessions: ShownSession[] }>> {
  if (!(await canSeeTask(deps.store, principal, taskId))) return TASK_NOT_FOUND;
  // The clarification half of every session comes with the list's one statement; the
  // registry's half is memory, but with several servers a session whose agent does not run
  // here costs the mirror read a write of it would make.
  const listed = await listSessionsReadingClarification(deps.store, taskId);
  const visible =
    principal.kind === 'agent'
      ? listed.filter(({ session }) => session.id === principal.sessionId)
      : listed;
  return {
    ok: true,
    sessions: await Promise.all(
      visible.map(async ({ session, activeClarification }) => ({
        session,
        pendingAction: await deps.sessions.pendingAction(session.id, activeClarification),
      })),
    ),
  };
}

/**
 * Asks the agent to stop its running turn; the turn ends by the agent's report,
 * whose line keeps who asked and where. Only a person stops a turn: an agent
 * is refused before any read, as by the deciding services, whatever reaches this.
 */
export async function cancelTurn(
  deps: TurnsDeps,
  caller: { principal: Principal; surface: DecisionSurface },
  sessionId: string,
): Promise<Found | Failure<'person_required'>> {
  const { principal } = caller;
  const by = responderOf(principal, caller.surface);
  if (!by) return failure('person_required');
  if (!(await canSeeSession(deps.store, principal, sessionId))) return SESSION_NOT_FOUND;
  await confirmLease(deps, sessionId);
  if (deps.host.isStarted(sessionId)) {
    // The person goes with the turn running now; an ended one's end will not read them.
    const turn = await currentTurn(deps.store, sessionId);
    if (turn) deps.cancellations.noted(sessionId, turn.id, by);
    await deps.host.cancel(sessionId);
  } else if (deps.leases) {
    // Several replicas: the agent may run on another one, which takes the request from the
    // store at this wake or, if the wake is lost, at its next poll.
    const { leases } = deps;
    await deps.store.transaction(async (tx) => {
      if (await requestTurnCancel(tx, { sessionId, userId: by.user_id, surface: by.surface })) {
        await leases.tellHolder(tx, sessionId, 'cancel');
      }
    });
  }
  return { ok: true };
}

export async function deleteSession(
  deps: TurnsDeps,
  principal: Principal,
  sessionId: string,
): Promise<Found> {
  if (principal.kind !== 'user' || !(await canSeeSession(deps.store, principal, sessionId))) {
    return SESSION_NOT_FOUND;
  }
  deps.cancellations.deletionStarted(sessionId);
  try {
    const elsewhere = await stopForDeletion(deps, sessionId);
    const deleted = await deleteRows(deps, [sessionId], elsewhere, async (tx) => {
      const gone = await deleteSessionRow(tx, sessionId);
      return gone && { ...gone, withTask: false };
    });
    return deleted ? { ok: true } : SESSION_NOT_FOUND;
  } finally {
    deps.cancellations.deletionEnded(sessionId);
  }
}

export async function deleteTask(
  deps: TurnsDeps,
  principal: Principal,
  taskId: string,
): Promise<Found> {
  if (principal.kind !== 'user' || !(await canSeeTask(deps.store, principal, taskId))) {
    return TASK_NOT_FOUND;
  }
  const sessions = await listSessions(deps.store, taskId);
  // Only the marks this call set are its to end: a session it did not reach before failing may
  // be under a delete of its own, whose mark ending here would let its stopped turn write.
  const marked: string[] = [];
  try {
    const elsewhere: string[] = [];
    for (const session of sessions) {
      deps.cancellations.deletionStarted(session.id);
      marked.push(session.id);
      elsewhere.push(...(await stopForDeletion(deps, session.id)));
    }
    const deleted = await deleteRows(deps, marked, elsewhere, async (tx) => {
      const gone = await deleteTaskRow(tx, taskId);
      return gone && { ...gone, withTask: true };
    });
    return deleted ? { ok: true } : TASK_NOT_FOUND;
  } finally {
    for (const sessionId of marked) deps.cancellations.deletionEnded(sessionId);
  }
}

/**
 * Stops the session's agent before its rows go. The turn the stop ends waits
 * for the deletion to end: with the rows gone it writes nothing (no failure,
 * no idle session); a delete that failed (503) leaves it ended as a stop,
 * cancelled, the session idle and its queue going on with a new agent
 * (`endTurn`), its questions detached and answerable. Returns the session
 * when its agent may run on another replica, whose holder hears `stop` with
 * the delete's commit (a lost wake is covered: the lease row goes with the
 * session, and the holder fences at its renew); the session is gone by then,
 * so that turn's end writes nothing either. Its caller marked the deletion
 * under way first, and ends that mark, its own only, whichever way the
 * deletion ends.
 */
async function stopForDeletion(deps: TurnsDeps, sessionId: string): Promise<string[]> {
  await confirmLease(deps, sessionId);
  const here = deps.host.isStarted(sessionId);
  if (here) await deps.host.stop(sessionId);
  return here || !deps.leases ? [] : [sessionId];
}

/**
 * Deletes the rows (`change`, one write), then closes what was open in the
 * sessions: the waits on their questions end and their user-input requests
 * (consent, action, form, follow-ups) settle as swept, the agents hear so.
 * Only once the delete committed, never before: a delete the storage refuses
 * must change nothing a person sees, and neither can be undone (an expired
 * question a person was told was over may have been sent again as a message;
 * a settled request is final, its agent already answered). Until the commit a
 * person may still answer; what they answered goes with the rows.
 */
async function deleteRows(
  deps: TurnsDeps,
  sessionIds: readonly string[],
  elsewhere: readonly string[],
  change: (tx: RepoContext) => Promise<SessionsDeleted | undefined>,
): Promise<boolean> {
  const endWaits: (() => void)[] = [];
  const deleted = await deps.sessions.deleteSessions(async (tx) => {
    endWaits.length = 0;
    // Read before the rows go with the sessions.
    for (const sessionId of sessionIds)
      endWaits.push(await deps.clarification.deleting(tx, sessionId));
    const gone = await change(tx);
    if (gone) await tellHolders(deps, tx, elsewhere);
    return gone;
  });
  if (!deleted) return false;
  for (const end of endWaits) end();
  for (const { id } of deleted.sessions) {
    deps.userInputs.sessionDeleted(id);
    // An agent started here while the delete ran (an answer's successor turn, a message admitted
    // meanwhile) goes with its session.
    if (deps.host.isStarted(id)) {
      await deps.host.stop(id).catch((error: unknown) => {
        deps.logger.warn({ err: error, session_id: id }, "a deleted session's agent did not stop");
      });
    }
  }
  return true;
}

async function tellHolders(
  deps: TurnsDeps,
  tx: RepoContext,
  sessionIds: readonly string[],
): Promise<void> {
  for (const sessionId of sessionIds) await deps.leases?.tellHolder(tx, sessionId, 'stop');
}
