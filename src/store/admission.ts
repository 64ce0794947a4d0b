/**
 * Rows behind message admission and the session queue (DESIGN §2, §7):
 * admitted user messages carry their admission key, unique per session, and
 * queued messages wait in `message_queue` in position order.
 */
import { sql } from 'kysely';
import type { RepoContext } from './context.js';
import { archiveDecisions } from './decisions.js';
import { toMessageRecord, type MessageRecord } from './messages.js';
import type { MessageQueueTable } from './tables.js';
import type { SessionRecord } from './tasks.js';

export type QueuedMessage = MessageQueueTable;

export async function messageByAdmissionKey(
  ctx: RepoContext,
  sessionId: string,
  admissionKey: string,
): Promise<MessageRecord | undefined> {
  const row = await ctx.db
    .selectFrom('task_session_messages')
    .selectAll()
    .where('task_session_id', '=', sessionId)
    .where('admission_key', '=', admissionKey)
    .executeTakeFirst();
  return row && toMessageRecord(row);
}

export async function queuedByAdmissionKey(
  ctx: RepoContext,
  sessionId: string,
  admissionKey: string,
): Promise<QueuedMessage | undefined> {
  return ctx.db
    .selectFrom('message_queue')
    .selectAll()
    .where('task_session_id', '=', sessionId)
    .where('admission_key', '=', admissionKey)
    .executeTakeFirst();
}

export async function listQueue(ctx: RepoContext, sessionId: string): Promise<QueuedMessage[]> {
  return ctx.db
    .selectFrom('message_queue')
    .selectAll()
    .where('task_session_id', '=', sessionId)
    .orderBy('position')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function enqueueMessage(
  ctx: RepoContext,
  input: {
    sessionId: string;
    taskId: string;
    content: string;
    admissionKey: string;
    createdBy: string | null;
  },
): Promise<QueuedMessage> {
  const last = await ctx.db
    .selectFrom('message_queue')
    .select(sql<number | string | null>`MAX(position)`.as('position'))
    .where('task_session_id', '=', input.sessionId)
    .executeTakeFirst();
  const now = ctx.clock.timestamp();
  const row: QueuedMessage = {
    id: ctx.ids.next(),
    task_session_id: input.sessionId,
    task_id: input.taskId,
    content: input.content,
    admission_key: input.admissionKey,
    position: Number(last?.position ?? 0) + 1,
    created_by: input.createdBy,
    created_at: now,
    updated_at: now,
  };
  await ctx.db.insertInto('message_queue').values(row).execute();
  return row;
}

/**
 * What an edit of a queued message found: saved, made from a text the message
 * no longer has (`changed`, with the row as it stands, untouched), or no such
 * message in the session.
 */
export type QueuedEdit =
  | { kind: 'saved'; item: QueuedMessage }
  | { kind: 'changed'; item: QueuedMessage }
  | { kind: 'missing' };

/**
 * Sets a queued message's text only while it still reads `baseContent`: the
 * compare and the write are one statement, so an edit made from a text
 * another edit replaced can never land over it. The editor (`editedBy`)
 * wrote what is sent, so it is sent as theirs.
 */
export async function updateQueuedContent(
  ctx: RepoContext,
  sessionId: string,
  id: string,
  edit: { content: string; baseContent: string; editedBy: string | null },
): Promise<QueuedEdit> {
  const { content, baseContent } = edit;
  const saved = await ctx.db
    .updateTable('message_queue')
    .set({ content, created_by: edit.editedBy, updated_at: ctx.clock.timestamp() })
    .where('id', '=', id)
    .where('task_session_id', '=', sessionId)
    .where('content', '=', baseContent)
    .returningAll()
    .executeTakeFirst();
  if (saved) return { kind: 'saved', item: saved };
  const current = await ctx.db
    .selectFrom('message_queue')
    .selectAll()
    .where('id', '=', id)
    .where('task_session_id', '=', sessionId)
    .executeTakeFirst();
  return current ? { kind: 'changed', item: current } : { kind: 'missing' };
}

/** Rewrites positions to follow `ids`; false unless `ids` is exactly the session's queue. */
export async function reorderQueue(
  ctx: RepoContext,
  sessionId: string,
  ids: readonly string[],
): Promise<boolean> {
  const current = await listQueue(ctx, sessionId);
  const known = new Set(current.map((item) => item.id));
  if (ids.length !== current.length || new Set(ids).size !== ids.length) return false;
  if (!ids.every((id) => known.has(id))) return false;
  for (const [index, id] of ids.entries()) {
    await ctx.db
      .updateTable('message_queue')
      .set({ position: index + 1, updated_at: ctx.clock.timestamp() })
      .where('id', '=', id)
      .execute();
  }
  return true;
}

export async function deleteQueued(
  ctx: RepoContext,
  sessionId: string,
  id: string,
): Promise<QueuedMessage | undefined> {
  return ctx.db
    .deleteFrom('message_queue')
    .where('id', '=', id)
    .where('task_session_id', '=', sessionId)
    .returningAll()
    .executeTakeFirst();
}

export async function clearQueue(ctx: RepoContext, sessionId: string): Promise<QueuedMessage[]> {
  return ctx.db
    .deleteFrom('message_queue')
    .where('task_session_id', '=', sessionId)
    .returningAll()
    .execute();
}

/**
 * Takes off the queue the messages whose author no longer belongs to the
 * session's workspace (removed from it, or deleted: `created_by` keeps no
 * key to the user), for the driver to drop rather than send for them.
 */
export async function takeQueuedOfLeftAuthors(
  ctx: RepoContext,
  sessionId: string,
): Promise<QueuedMessage[]> {
  return ctx.db
    .deleteFrom('message_queue')
    .where('task_session_id', '=', sessionId)
    .where('created_by', 'is not', null)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('tasks as t')
            .innerJoin('workspace_members as wm', 'wm.workspace_id', 't.workspace_id')
            .select('wm.user_id')
            .whereRef('t.id', '=', 'message_queue.task_id')
            .whereRef('wm.user_id', '=', 'message_queue.created_by'),
        ),
      ),
    )
    .returningAll()
    .execute();
}

/** Takes the first queued message off the queue, for the driver to start. */
export async function takeNextQueued(
  ctx: RepoContext,
  sessionId: string,
): Promise<QueuedMessage | undefined> {
  const [next] = await listQueue(ctx, sessionId);
  if (!next) return undefined;
  await ctx.db.deleteFrom('message_queue').where('id', '=', next.id).execute();
  return next;
}

/** Session rows a delete removed, as they were, and their task's workspace. */
export interface DeletedSessions {
  readonly sessions: readonly SessionRecord[];
  readonly workspaceId: string;
}

/** The session and its rows, its decisions kept for the log (`archiveDecisions`). */
export async function deleteSessionRow(
  ctx: RepoContext,
  sessionId: string,
): Promise<DeletedSessions | undefined> {
  await archiveDecisions(ctx, { sessionId });
  const session = await ctx.db
    .deleteFrom('task_sessions')
    .where('id', '=', sessionId)
    .returningAll()
    .executeTakeFirst();
  if (!session) return undefined;
  const task = await ctx.db
    .selectFrom('tasks')
    .select('workspace_id')
    .where('id', '=', session.task_id)
    .executeTakeFirstOrThrow();
  return { sessions: [session], workspaceId: task.workspace_id };
}

/**
 * The task and its sessions (each returned as it was), their decisions kept
 * for the log; `undefined` if the task is gone.
 */
export async function deleteTaskRow(
  ctx: RepoContext,
  taskId: string,
): Promise<DeletedSessions | undefined> {
  await archiveDecisions(ctx, { taskId });
  // The sessions first, to say which went: the task's delete would take them along unseen.
  const sessions = await ctx.db
    .deleteFrom('task_sessions')
    .where('task_id', '=', taskId)
    .returningAll()
    .execute();
  const task = await ctx.db
    .deleteFrom('tasks')
    .where('id', '=', taskId)
    .returning('workspace_id')
    .executeTakeFirst();
  return task ? { sessions, workspaceId: task.workspace_id } : undefined;
}
