/** Tasks and their sessions. */
import { MAX_TASK_PAGE } from '../wire/index.js';
import { chunks } from './chunks.js';
import { compiledStatement, ONE_ROW } from './compiled.js';
import type { RepoContext } from './context.js';
import { createdAfter, splitPage, type CreatedCursor } from './keyset.js';
import { ALL_SESSIONS, sessionInScope, type SessionScope } from './leases.js';
import type { SessionState, TaskSessionsTable, TasksTable, Timestamp } from './tables.js';
import { EXTERNAL_AGENT_PROFILE, TERMINAL_SESSION_STATES } from '../wire/index.js';

export type TaskRecord = TasksTable;
export type SessionRecord = TaskSessionsTable;

export async function createTask(
  ctx: RepoContext,
  input: { workspaceId: string; title: string; createdBy?: string; cwd?: string },
): Promise<TaskRecord> {
  const now = ctx.clock.timestamp();
  const row: TaskRecord = {
    id: ctx.ids.next(),
    workspace_id: input.workspaceId,
    title: input.title,
    created_by: input.createdBy ?? null,
    cwd: input.cwd ?? null,
    created_at: now,
    updated_at: now,
  };
  await ctx.db.insertInto('tasks').values(row).execute();
  return row;
}

export async function getTask(ctx: RepoContext, id: string): Promise<TaskRecord | undefined> {
  return ctx.db.selectFrom('tasks').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Tasks of the given workspaces, oldest first. */
export async function listTasks(
  ctx: RepoContext,
  workspaceIds: readonly string[],
): Promise<TaskRecord[]> {
  if (workspaceIds.length === 0) return [];
  return ctx.db
    .selectFrom('tasks')
    .selectAll()
    .where('workspace_id', 'in', workspaceIds)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** Position in a task list: the last task a page ended on. */
export type TaskCursor = CreatedCursor;

export interface TaskPage {
  readonly tasks: TaskRecord[];
  /** Where the next page starts; `null` on the last page. */
  readonly next: TaskCursor | null;
}

/**
 * One page of the tasks of the given workspaces, oldest first, after
 * `after`: a keyset over (created_at, id), which `idx_tasks_workspace`
 * serves per workspace, so a page costs its own rows, not the ones before.
 */
export async function taskPage(
  ctx: RepoContext,
  workspaceIds: readonly string[],
  options: { after?: TaskCursor | undefined; limit: number },
): Promise<TaskPage> {
  if (workspaceIds.length === 0) return { tasks: [], next: null };
  const limit = Math.max(1, Math.min(options.limit, MAX_TASK_PAGE));
  let query = ctx.db.selectFrom('tasks').selectAll().where('workspace_id', 'in', workspaceIds);
  const { after } = options;
  if (after) query = query.where(createdAfter(after));
  const rows = await query
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit + 1)
    .execute();
  const page = splitPage(rows, limit);
  return { tasks: page.rows, next: page.next };
}

export async function createSession(
  ctx: RepoContext,
  input: { taskId: string; agentProfile: string; state?: SessionState },
): Promise<SessionRecord> {
  const now = ctx.clock.timestamp();
  const row: SessionRecord = {
    id: ctx.ids.next(),
    task_id: input.taskId,
    agent_profile: input.agentProfile,
    state: input.state ?? 'idle',
    agent_session_id: null,
    failure_code: null,
    failure_message: null,
    failed_at: null,
    revision: 0,
    created_at: now,
    updated_at: now,
  };
  await ctx.db.insertInto('task_sessions').values(row).execute();
  return row;
}

export async function getSession(ctx: RepoContext, id: string): Promise<SessionRecord | undefined> {
  const [row] = await sessionStatement(ctx, '', id);
  return row;
}

/** Of `ids`, the sessions that exist and have not ended. */
export async function liveSessionIds(
  ctx: RepoContext,
  ids: readonly string[],
): Promise<Set<string>> {
  const live = new Set<string>();
  for (const part of chunks([...new Set(ids)])) {
    const rows = await ctx.db
      .selectFrom('task_sessions')
      .select('id')
      .where('id', 'in', part)
      .where('state', 'not in', TERMINAL_SESSION_STATES)
      .execute();
    for (const row of rows) live.add(row.id);
  }
  return live;
}

// Read in every session write and on every ask: built once (`compiled.ts`).
const sessionStatement = compiledStatement('session by id', (ctx: RepoContext, id: string) =>
  ctx.db.selectFrom('task_sessions').selectAll().where('id', '=', id),
);

export async function listSessions(ctx: RepoContext, taskId: string): Promise<SessionRecord[]> {
  return ctx.db
    .selectFrom('task_sessions')
    .selectAll()
    .where('task_id', '=', taskId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/**
 * The sessions, not yet ended, of the tasks `userId` created (in
 * `workspaceId` alone, when given): those whose agents act for that person
 * (their tokens are minted for them). Read before the person is deleted,
 * which leaves their tasks without a creator, or removed from the workspace.
 */
export async function liveSessionsCreatedBy(
  ctx: RepoContext,
  userId: string,
  workspaceId?: string,
): Promise<string[]> {
  const rows = await liveSessionsOfTasksBy(ctx, userId)
    .$if(workspaceId !== undefined, (query) =>
      query.where('t.workspace_id', '=', workspaceId ?? ''),
    )
    .execute();
  return rows.map((row) => row.id);
}

function liveSessionsOfTasksBy(ctx: RepoContext, userId: string) {
  return ctx.db
    .selectFrom('task_sessions as s')
    .innerJoin('tasks as t', 't.id', 's.task_id')
    .select('s.id')
    .where('t.created_by', '=', userId)
    .where('s.state', 'not in', TERMINAL_SESSION_STATES)
    .orderBy('s.id');
}

/** An external agent's session and its task. */
export interface ExternalSessionRef {
  readonly sessionId: string;
  readonly taskId: string;
}

/**
 * `userId`'s live external session for the client name `title`: of the
 * tasks they created with that title in a workspace they still belong to,
 * the newest that has one, and its newest. One read, reaching the tasks
 * through `idx_tasks_creator_title`, so it costs the tasks of that title,
 * not all of the person's (each MCP read of a client that has not asked yet
 * looks it up).
 */
export async function liveExternalSessionFor(
  ctx: RepoContext,
  userId: string,
  title: string,
): Promise<ExternalSessionRef | undefined> {
  const [row] = await externalSessionStatement(ctx, '', userId, title);
  return row && { sessionId: row.session_id, taskId: row.task_id };
}

const externalSessionStatement = compiledStatement(
  'live external session for a client name',
  (ctx: RepoContext, userId: string, title: string) =>
    ctx.db
      .selectFrom('tasks as t')
      .innerJoin('task_sessions as s', 's.task_id', 't.id')
      .innerJoin('workspace_members as wm', (join) =>
        join.onRef('wm.workspace_id', '=', 't.workspace_id').on('wm.user_id', '=', userId),
      )
      .select(['s.id as session_id', 't.id as task_id'])
      .where('t.created_by', '=', userId)
      .where('t.title', '=', title)
      .where('s.agent_profile', '=', EXTERNAL_AGENT_PROFILE)
      .where('s.state', 'not in', TERMINAL_SESSION_STATES)
      .orderBy('t.created_at', 'desc')
      .orderBy('t.id', 'desc')
      .orderBy('s.created_at', 'desc')
      .orderBy('s.id', 'desc')
      .limit(ONE_ROW),
);

/**
 * Serializes, until the transaction ends, whatever counts `userId`'s external
 * agents against their bounds: opening a session for a new client name and
 * opening a question in any of their sessions. Taken after the session's own
 * lock by an ask, and by nothing that then takes a session's lock.
 */
export function lockExternalAgents(ctx: RepoContext, userId: string): Promise<void> {
  return ctx.dialect.lockSession(ctx.db, `external-agent:${userId}`);
}

/**
 * The external sessions, not yet ended, of the tasks `userId` created: the
 * sessions their external agents ask in, one per MCP client name. What the
 * bounds on those agents count (open asks, sessions), since a client's name
 * is its own to choose and so tells nothing apart.
 */
export async function liveExternalSessionsOf(ctx: RepoContext, userId: string): Promise<string[]> {
  const rows = await liveSessionsOfTasksBy(ctx, userId)
    .where('s.agent_profile', '=', EXTERNAL_AGENT_PROFILE)
    .execute();
  return rows.map((row) => row.id);
}

/** Moves a session to `state`, bumping its revision and row version; `undefined` if absent. */
export async function setSessionState(
  ctx: RepoContext,
  id: string,
  state: SessionState,
): Promise<SessionRecord | undefined> {
  return ctx.db
    .updateTable('task_sessions')
    .set((eb) => ({
      state,
      revision: eb('revision', '+', 1),
      updated_at: ctx.clock.timestamp(),
    }))
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/** Moves a session to `state` only from one of `from`; `undefined` when it was elsewhere. */
export async function transitionSession(
  ctx: RepoContext,
  id: string,
  from: readonly SessionState[],
  state: SessionState,
): Promise<SessionRecord | undefined> {
  if (from.length === 0) return undefined;
  const updatedAt = ctx.clock.timestamp();
  const [row] = await transitionStatement(ctx, String(from.length), id, state, updatedAt, ...from);
  return row;
}

/**
 * Fails a session from one of `from`, keeping why: the failure's code and
 * words and when. `undefined` when the session was elsewhere (or gone).
 */
export async function failSession(
  ctx: RepoContext,
  id: string,
  from: readonly SessionState[],
  failure: { code: string; message: string },
): Promise<SessionRecord | undefined> {
  if (from.length === 0) return undefined;
  const now = ctx.clock.timestamp();
  return ctx.db
    .updateTable('task_sessions')
    .set((eb) => ({
      state: 'failed' as const,
      failure_code: failure.code,
      failure_message: failure.message,
      failed_at: now,
      revision: eb('revision', '+', 1),
      updated_at: now,
    }))
    .where('id', '=', id)
    .where('state', 'in', from)
    .returningAll()
    .executeTakeFirst();
}

/**
 * A failed session made `starting` for a restart, its failure cleared (its
 * agent's start then moves it on); `undefined` if it was not failed.
 */
export async function clearSessionFailure(
  ctx: RepoContext,
  id: string,
): Promise<SessionRecord | undefined> {
  return ctx.db
    .updateTable('task_sessions')
    .set((eb) => ({
      state: 'starting' as const,
      failure_code: null,
      failure_message: null,
      failed_at: null,
      revision: eb('revision', '+', 1),
      updated_at: ctx.clock.timestamp(),
    }))
    .where('id', '=', id)
    .where('state', '=', 'failed')
    .returningAll()
    .executeTakeFirst();
}

/** Remembers the agent's own session ID, so a restarted agent can load the conversation. */
export async function setAgentSessionId(
  ctx: RepoContext,
  id: string,
  agentSessionId: string,
): Promise<void> {
  await ctx.db
    .updateTable('task_sessions')
    .set({ agent_session_id: agentSessionId, updated_at: ctx.clock.timestamp() })
    .where('id', '=', id)
    .execute();
}

const transitionStatement = compiledStatement(
  'session transition',
  (
    ctx: RepoContext,
    id: string,
    state: SessionState,
    updatedAt: Timestamp,
    ...from: SessionState[]
  ) =>
    ctx.db
      .updateTable('task_sessions')
      .set((eb) => ({ state, revision: eb('revision', '+', 1), updated_at: updatedAt }))
      .where('id', '=', id)
      .where('state', 'in', from)
      .returningAll(),
);

/**
 * Start-up: agent processes do not survive a restart, so a session that was
 * starting, running or waiting for input is idle again; its next prompt, or a detached
 * answer, starts its agent anew.
 */
export async function resetInterruptedSessions(
  ctx: RepoContext,
  scope: SessionScope = ALL_SESSIONS,
): Promise<number> {
  const result = await ctx.db
    .updateTable('task_sessions')
    .set((eb) => ({
      state: 'idle',
      revision: eb('revision', '+', 1),
      updated_at: ctx.clock.timestamp(),
    }))
    .where('state', 'in', ['starting', 'running', 'waiting_for_input'])
    .where(sessionInScope(ctx, scope, 'task_sessions.id'))
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Sessions in `scope` that take no more turns (failed, say): no agent of theirs should run. */
export async function endedSessions(ctx: RepoContext, scope: SessionScope): Promise<string[]> {
  const rows = await ctx.db
    .selectFrom('task_sessions')
    .select('id')
    .where('state', 'in', TERMINAL_SESSION_STATES)
    .where(sessionInScope(ctx, scope, 'task_sessions.id'))
    .orderBy('id')
    .execute();
  return rows.map((row) => row.id);
}

/** Idle sessions with queued messages: after a restart nothing else would start them. */
export async function idleSessionsWithQueue(
  ctx: RepoContext,
  scope: SessionScope = ALL_SESSIONS,
): Promise<string[]> {
  const rows = await ctx.db
    .selectFrom('task_sessions')
    .select('id')
    .where('state', '=', 'idle')
    .where(sessionInScope(ctx, scope, 'task_sessions.id'))
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('message_queue')
          .select('message_queue.id')
          .whereRef('message_queue.task_session_id', '=', 'task_sessions.id'),
      ),
    )
    .orderBy('updated_at')
    .execute();
  return rows.map((row) => row.id);
}
