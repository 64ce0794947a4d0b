/**
 * Tasks, sessions, transcripts, message admission and the session queue over
 * REST. Parse, call one service, map the typed result; nothing else.
 */
import type { Context, Hono } from 'hono';
import { toMessageView } from '../events/index.js';
import { type QueuedMessage, type TaskRecord, type TranscriptCursor } from '../store/index.js';
import { admitMessage, sessionFailureOf, type MessageAdmission } from '../turns/index.js';
import {
  createTaskBody,
  decisionListQuery,
  DEFAULT_DECISION_PAGE,
  DEFAULT_TASK_PAGE,
  DEFAULT_TRANSCRIPT_PAGE,
  messageBody,
  queueEditBody,
  queueOrderBody,
  taskListQuery,
  textIssues,
  transcriptPageQuery,
  unpagedListQuery,
  type MachineQueueItem,
  type SessionView,
  type TaskView,
  type TranscriptOrder,
  type UserQueueItem,
} from '../wire/index.js';
import type { ShownSession, TurnsDeps } from '../turns/index.js';
import {
  type SessionQueue,
  clearQueued,
  editQueued,
  queueOf,
  reorderQueued,
  removeQueued,
  type QueueResult,
} from '../turns/index.js';
import {
  agentProfileList,
  cancelTurn,
  createTaskWithSession,
  restartSession,
  deleteSession,
  deleteTask,
  visibleSessions,
  visibleTaskPage,
} from '../turns/index.js';
import { decisionCaller } from './auth.js';
import type { AppEnv } from './env.js';
import { errorResponse, failureResponse } from './errors.js';
import { decisionHistory, sessionTranscript } from '../turns/index.js';
import { parseJsonBody, parseQuery, storableParams } from './request-guards.js';

export function taskView(task: TaskRecord): TaskView {
  return {
    id: task.id,
    workspace_id: task.workspace_id,
    title: task.title,
    created_by: task.created_by,
    created_at: task.created_at,
    updated_at: task.updated_at,
  };
}

export function sessionView({ session, pendingAction }: ShownSession): SessionView {
  return {
    id: session.id,
    task_id: session.task_id,
    agent_profile: session.agent_profile,
    state: session.state,
    failure: sessionFailureOf(session),
    revision: session.revision,
    pending_action: pendingAction,
    created_at: session.created_at,
    updated_at: session.updated_at,
  };
}

export function queueItemView(item: QueuedMessage): UserQueueItem {
  return {
    id: item.id,
    session_id: item.task_session_id,
    text: item.content,
    admission_key: item.admission_key,
    position: item.position,
    owner: 'user' as const,
    editable: true as const,
    created_at: item.created_at,
    updated_at: item.updated_at,
  };
}

/**
 * The lists whose cursors this file mints; a cursor names its list, so another
 * refuses it. A transcript names its session too: one session's position is
 * an arbitrary one in another's.
 */
type CursorList = 'tasks' | 'decisions' | `transcript ${string}`;

/**
 * A transcript's list names its order too: a position read forward is not
 * where a page read backward would go on. The oldest-first name is the one
 * cursors had before there were two orders, so theirs still page.
 */
function transcriptList(sessionId: string, order: TranscriptOrder): CursorList {
  return order === 'oldest_first' ? `transcript ${sessionId}` : `transcript ${sessionId} ${order}`;
}

/** The cursor a paged read of `list` names, or the 400 that says it is none of this list's. */
function cursorOf(
  c: Context<AppEnv>,
  list: CursorList,
  raw: string | undefined,
): { ok: true; cursor: TranscriptCursor | undefined } | { ok: false; response: Response } {
  const cursor = raw === undefined ? undefined : decodeCursor(list, raw);
  if (raw !== undefined && !cursor) {
    const response = errorResponse(c, 'invalid_request', 'invalid cursor', [
      { path: 'cursor', message: 'is not a cursor from this API' },
    ]);
    return { ok: false, response };
  }
  return { ok: true, cursor };
}

/**
 * Transcript, task and decision-log cursors are opaque to clients: base64url
 * of the list's name (with a transcript's session) and the last row's
 * (created_at, id). The name keeps a cursor of one list from paging another
 * as an arbitrary position in it.
 */
export function encodeCursor(list: CursorList, cursor: TranscriptCursor): string {
  return Buffer.from(JSON.stringify([list, cursor.createdAt, cursor.id])).toString('base64url');
}

export function decodeCursor(list: CursorList, value: string): TranscriptCursor | undefined {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
    if (
      Array.isArray(parsed) &&
      parsed.length === 3 &&
      parsed[0] === list &&
      typeof parsed[1] === 'string' &&
      typeof parsed[2] === 'string' &&
      // Clarion never writes NUL into a cursor, and PostgreSQL would refuse it as a parameter.
      textIssues(parsed).length === 0
    ) {
      return { createdAt: parsed[1], id: parsed[2] };
    }
  } catch {
    // Fall through: any unreadable cursor is the same client error.
  }
  return undefined;
}

function admissionResponse(c: Context<AppEnv>, result: MessageAdmission) {
  if (!result.ok) return failureResponse(c, result);
  return result.outcome === 'sent'
    ? c.json({ outcome: 'sent', message: toMessageView(result.message) })
    : c.json({ outcome: 'queued', item: queueItemView(result.item) }, 202);
}

/** How the task's first prompt was admitted, as the create reply names it. */
const ADMISSION_NAMES = {
  session_refused: 'refused',
  // The agent could not be started: the session in the reply says why.
  session_failed: 'failed',
  agent_unavailable: 'failed',
  // The agent did not take it and the storage could not say so yet: the session reads running.
  storage_unavailable: 'failed',
  session_busy: 'busy',
  not_found: 'not_found',
  // Not met in practice: the create holds the agent's place before writing anything.
  quota_exceeded: 'refused',
  // Not met: only a person creates a task.
  person_required: 'refused',
} as const;

function admissionName(result: MessageAdmission) {
  return result.ok ? result.outcome : ADMISSION_NAMES[result.code];
}

function queueResponse<T>(c: Context<AppEnv>, result: QueueResult<T>, view: (value: T) => unknown) {
  return result.ok ? c.json(view(result.value)) : failureResponse(c, result);
}

function sessionQueueView(queue: SessionQueue): (UserQueueItem | MachineQueueItem)[] {
  return [...queue.user.map(queueItemView), ...queue.machine];
}

export function registerTaskRoutes(app: Hono<AppEnv>, deps: TurnsDeps): void {
  // A wildcard also matches the bare `/:id`, and keeps these out of the route table.
  app.use('/api/v1/tasks/:id/*', storableParams('task not found'));
  app.use('/api/v1/sessions/:id/*', storableParams('session not found'));
  app.use('/api/v1/sessions/:id/queue/:itemId/*', storableParams('queued message not found'));
  app.post('/api/v1/tasks', async (c) => {
    const body = await parseJsonBody(c, createTaskBody);
    if (!body.ok) return body.response;
    const result = await createTaskWithSession(deps, c.get('principal'), {
      title: body.value.title,
      ...(body.value.workspace_id ? { workspaceId: body.value.workspace_id } : {}),
      ...(body.value.agent_profile ? { agentProfile: body.value.agent_profile } : {}),
      ...(body.value.prompt ? { prompt: body.value.prompt } : {}),
      ...(body.value.cwd ? { cwd: body.value.cwd } : {}),
    });
    if (!result.ok) return failureResponse(c, result);
    return c.json(
      {
        task: taskView(result.task),
        session: sessionView(result),
        // Absent, never null, without a prompt: the reply's schema has it optional.
        ...(result.admission ? { admission: admissionName(result.admission) } : {}),
      },
      201,
    );
  });

  app.get('/api/v1/agent-profiles', (c) => {
    const query = parseQuery(c, unpagedListQuery);
    if (!query.ok) return query.response;
    return c.json({ profiles: agentProfileList(deps) });
  });

  app.get('/api/v1/tasks', async (c) => {
    const query = parseQuery(c, taskListQuery);
    if (!query.ok) return query.response;
    const paged = cursorOf(c, 'tasks', query.value.cursor);
    if (!paged.ok) return paged.response;
    const { limit = DEFAULT_TASK_PAGE } = query.value;
    const page = await visibleTaskPage(deps, c.get('principal'), { limit, after: paged.cursor });
    return c.json({
      tasks: page.tasks.map(taskView),
      next_cursor: page.next ? encodeCursor('tasks', page.next) : null,
    });
  });

  app.get('/api/v1/tasks/:id/sessions', async (c) => {
    const query = parseQuery(c, unpagedListQuery);
    if (!query.ok) return query.response;
    const result = await visibleSessions(deps, c.get('principal'), c.req.param('id'));
    if (!result.ok) return failureResponse(c, result);
    return c.json({ sessions: result.sessions.map(sessionView) });
  });

  app.delete('/api/v1/tasks/:id', async (c) => {
    const result = await deleteTask(deps, c.get('principal'), c.req.param('id'));
    return result.ok ? c.json({ deleted: true }) : failureResponse(c, result);
  });

  app.get('/api/v1/decisions', async (c) => {
    const query = parseQuery(c, decisionListQuery);
    if (!query.ok) return query.response;
    const { limit = DEFAULT_DECISION_PAGE, task_id: taskId, kind, user_id: userId } = query.value;
    const { since, until } = query.value;
    const paged = cursorOf(c, 'decisions', query.value.cursor);
    if (!paged.ok) return paged.response;
    const { cursor } = paged;
    const page = await decisionHistory(deps, c.get('principal'), {
      limit,
      before: cursor && { decidedAt: cursor.createdAt, id: cursor.id },
      filter: { taskId, kind, userId, since, until },
    });
    return c.json({
      decisions: page.entries,
      next_cursor: page.next
        ? encodeCursor('decisions', { createdAt: page.next.decidedAt, id: page.next.id })
        : null,
    });
  });

  app.get('/api/v1/sessions/:id/messages', async (c) => {
    const query = parseQuery(c, transcriptPageQuery);
    if (!query.ok) return query.response;
    const sessionId = c.req.param('id');
    const { limit = DEFAULT_TRANSCRIPT_PAGE, order = 'oldest_first' } = query.value;
    const list = transcriptList(sessionId, order);
    const paged = cursorOf(c, list, query.value.cursor);
    if (!paged.ok) return paged.response;
    const { cursor: after } = paged;
    const result = await sessionTranscript(deps, c.get('principal'), sessionId, {
      limit,
      after,
      order,
    });
    if (!result.ok) return failureResponse(c, result);
    const { page } = result;
    return c.json({
      messages: page.messages.map(toMessageView),
      next_cursor: page.next ? encodeCursor(list, page.next) : null,
    });
  });

  app.post('/api/v1/sessions/:id/messages', async (c) => {
    const body = await parseJsonBody(c, messageBody);
    if (!body.ok) return body.response;
    const result = await admitMessage(deps, c.get('principal'), c.req.param('id'), {
      text: body.value.text,
      admissionKey: body.value.admission_key,
    });
    return admissionResponse(c, result);
  });

  app.post('/api/v1/sessions/:id/restart', async (c) => {
    const result = await restartSession(deps, c.get('principal'), c.req.param('id'));
    return result.ok ? c.json({ session: sessionView(result) }) : failureResponse(c, result);
  });

  app.post('/api/v1/sessions/:id/cancel', async (c) => {
    const result = await cancelTurn(deps, decisionCaller(c), c.req.param('id'));
    return result.ok ? c.json({ cancelling: true }, 202) : failureResponse(c, result);
  });

  app.delete('/api/v1/sessions/:id', async (c) => {
    const result = await deleteSession(deps, c.get('principal'), c.req.param('id'));
    return result.ok ? c.json({ deleted: true }) : failureResponse(c, result);
  });

  app.get('/api/v1/sessions/:id/queue', async (c) => {
    const query = parseQuery(c, unpagedListQuery);
    if (!query.ok) return query.response;
    return queueResponse(
      c,
      await queueOf(deps, c.get('principal'), c.req.param('id')),
      (queue) => ({
        items: sessionQueueView(queue),
      }),
    );
  });

  app.put('/api/v1/sessions/:id/queue/order', async (c) => {
    const body = await parseJsonBody(c, queueOrderBody);
    if (!body.ok) return body.response;
    const result = await reorderQueued(deps, c.get('principal'), c.req.param('id'), body.value.ids);
    return queueResponse(c, result, (items) => ({ items: items.map(queueItemView) }));
  });

  app.patch('/api/v1/sessions/:id/queue/:itemId', async (c) => {
    const body = await parseJsonBody(c, queueEditBody);
    if (!body.ok) return body.response;
    const result = await editQueued(
      deps,
      c.get('principal'),
      c.req.param('id'),
      c.req.param('itemId'),
      { content: body.value.text, baseContent: body.value.base_text },
    );
    return queueResponse(c, result, (item) => ({ item: queueItemView(item) }));
  });

  app.delete('/api/v1/sessions/:id/queue/:itemId', async (c) => {
    const result = await removeQueued(
      deps,
      c.get('principal'),
      c.req.param('id'),
      c.req.param('itemId'),
    );
    return queueResponse(c, result, (item) =>
      typeof item === 'string' ? { removed: item } : { item: queueItemView(item) },
    );
  });

  app.delete('/api/v1/sessions/:id/queue', async (c) => {
    const result = await clearQueued(deps, c.get('principal'), c.req.param('id'));
    return queueResponse(c, result, (queue) => ({ removed: sessionQueueView(queue) }));
  });
}
