/**
 * Transcript rows (`task_session_messages`). Pending-ID reads go through the
 * dialect's expression and order by `created_at`, `id`, which is exactly the
 * key order of `idx_messages_metadata_pending_id_lookup_ordered`, so the
 * index serves both the seek and the order whatever the transcript size.
 */
import { chunks } from './chunks.js';
import { compiledStatement, constantText } from './compiled.js';
import { parseMetadata, type Metadata, type RepoContext } from './context.js';
import { MAX_TRANSCRIPT_PAGE } from '../wire/index.js';
import type { TaskSessionMessagesTable } from './tables.js';
import { createdAfter, createdBefore, splitPage, type CreatedCursor } from './keyset.js';

export type MessageRecord = Omit<TaskSessionMessagesTable, 'metadata' | 'requests_input'> & {
  metadata: Metadata;
  requests_input: boolean;
};

export function toMessageRecord(row: TaskSessionMessagesTable): MessageRecord {
  return {
    ...row,
    metadata: parseMetadata(row.metadata),
    requests_input: row.requests_input === 1,
  };
}

export interface NewMessage {
  sessionId: string;
  taskId: string;
  turnId: string;
  authorType: 'user' | 'agent' | 'system';
  type: string;
  content: string;
  metadata?: Metadata;
  requestsInput?: boolean;
  admissionKey?: string;
}

export async function appendMessage(ctx: RepoContext, input: NewMessage): Promise<MessageRecord> {
  const now = ctx.clock.timestamp();
  const row: TaskSessionMessagesTable = {
    id: ctx.ids.next(),
    task_session_id: input.sessionId,
    task_id: input.taskId,
    turn_id: input.turnId,
    author_type: input.authorType,
    type: input.type,
    content: input.content,
    metadata: JSON.stringify(input.metadata ?? {}),
    requests_input: input.requestsInput === true ? 1 : 0,
    admission_key: input.admissionKey ?? null,
    created_at: now,
    updated_at: now,
  };
  await insertMessageStatement(ctx, '', ...MESSAGE_COLUMNS.map((column) => row[column]));
  return toMessageRecord(row);
}

export const MESSAGE_COLUMNS = [
  'id',
  'task_session_id',
  'task_id',
  'turn_id',
  'author_type',
  'type',
  'content',
  'metadata',
  'requests_input',
  'admission_key',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof TaskSessionMessagesTable)[];

// Every ask, answer and agent report appends rows: built once (`compiled.ts`), each column a value.
const insertMessageStatement = compiledStatement(
  'insert message',
  (ctx: RepoContext, ...values: unknown[]) =>
    ctx.db
      .insertInto('task_session_messages')
      .values(
        Object.fromEntries(
          MESSAGE_COLUMNS.map((column, index) => [column, values[index]]),
        ) as unknown as TaskSessionMessagesTable,
      ),
);

/**
 * Frees the admission keys of a turn whose message never reached the agent:
 * the row stays in the transcript as what was tried, and the same key sent
 * again (after a restart) is a new message that is really sent.
 */
export async function releaseTurnAdmissionKeys(ctx: RepoContext, turnId: string): Promise<void> {
  await ctx.db
    .updateTable('task_session_messages')
    .set({ admission_key: null })
    .where('turn_id', '=', turnId)
    .where('admission_key', 'is not', null)
    .execute();
}

/**
 * The turn's row for one agent tool call, if the agent reported that call
 * before. Reads the turn's tool-call rows through `idx_messages_turn`; a turn
 * holds few, so the match on the agent's ID is made here.
 */
export async function toolCallMessage(
  ctx: RepoContext,
  turnId: string,
  toolCallId: string,
): Promise<MessageRecord | undefined> {
  const rows = await ctx.db
    .selectFrom('task_session_messages')
    .selectAll()
    .where('turn_id', '=', turnId)
    .where('type', '=', constantText('tool_call'))
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(toMessageRecord).find((row) => row.metadata.toolCallId === toolCallId);
}

/** Replaces a row's text and metadata (an agent's later report of the same thing). */
export async function reviseMessage(
  ctx: RepoContext,
  id: string,
  revision: { content: string; metadata: Metadata },
): Promise<MessageRecord | undefined> {
  const row = await ctx.db
    .updateTable('task_session_messages')
    .set({
      content: revision.content,
      metadata: JSON.stringify(revision.metadata),
      updated_at: ctx.clock.timestamp(),
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
  return row && toMessageRecord(row);
}

/** Whether `turnId` already holds a `type` message saying exactly `content`. */
export async function turnHasMessage(
  ctx: RepoContext,
  turnId: string,
  type: string,
  content: string,
): Promise<boolean> {
  const row = await ctx.db
    .selectFrom('task_session_messages')
    .select('id')
    .where('turn_id', '=', turnId)
    .where('type', '=', type)
    .where('content', '=', content)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** The query behind every pending-ID read; exported so plan tests explain the real text. */
export function messagesByPendingIdQuery(ctx: RepoContext, pendingId: string) {
  return ctx.db
    .selectFrom('task_session_messages')
    .selectAll()
    .where(ctx.dialect.pendingId(), '=', pendingId)
    .orderBy('created_at')
    .orderBy('id');
}

/** Every row of one bundle, in bundle order, whichever session it is in. */
export async function messagesByPendingId(
  ctx: RepoContext,
  pendingId: string,
): Promise<MessageRecord[]> {
  const rows = await messagesByPendingIdStatement(ctx, '', pendingId);
  return rows.map(toMessageRecord);
}

const messagesByPendingIdStatement = compiledStatement(
  'messages by pending ID',
  messagesByPendingIdQuery,
);

/** Every row of each bundle, in bundle order within each; a pending ID with no rows has none. */
export async function messagesByPendingIds(
  ctx: RepoContext,
  pendingIds: readonly string[],
): Promise<MessageRecord[]> {
  const messages: MessageRecord[] = [];
  // A bundle's rows all carry its pending ID, so each lands whole in one slice.
  for (const part of chunks([...new Set(pendingIds)])) {
    const rows = await ctx.db
      .selectFrom('task_session_messages')
      .selectAll()
      .where(ctx.dialect.pendingId(), 'in', part)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    messages.push(...rows.map(toMessageRecord));
  }
  return messages;
}

/** Position in a transcript: the last row a page ended on. */
export type TranscriptCursor = CreatedCursor;

export interface TranscriptPage {
  messages: MessageRecord[];
  /** Where the next page starts; `null` on the last page. */
  next: TranscriptCursor | null;
}

export { MAX_TRANSCRIPT_PAGE };

/**
 * Which end a transcript is read from: `oldest_first` pages forward from its
 * start, `newest_first` back from its end (what a reader opens first).
 */
export type TranscriptOrder = 'oldest_first' | 'newest_first';

/**
 * One page of a session's transcript in `order`, past `from` (the row the
 * previous page of the same order ended on). Both orders walk
 * `idx_messages_session_created` (task_session_id, created_at, id), newest
 * first backwards, so a page costs its own rows on either driver.
 */
export async function transcriptPage(
  ctx: RepoContext,
  sessionId: string,
  options: { after?: TranscriptCursor; limit: number; order?: TranscriptOrder },
): Promise<TranscriptPage> {
  const limit = Math.max(1, Math.min(options.limit, MAX_TRANSCRIPT_PAGE));
  const rows = await transcriptRowsQuery(ctx, sessionId, { ...options, limit }).execute();
  const page = splitPage(rows, limit);
  return { messages: page.rows.map(toMessageRecord), next: page.next };
}

/** The query behind `transcriptPage`, one row past the page; exported so plan tests explain it. */
export function transcriptRowsQuery(
  ctx: RepoContext,
  sessionId: string,
  options: { after?: TranscriptCursor; limit: number; order?: TranscriptOrder },
) {
  const newestFirst = options.order === 'newest_first';
  let query = ctx.db
    .selectFrom('task_session_messages')
    .selectAll()
    .where('task_session_id', '=', sessionId);
  const from = options.after;
  if (from) query = query.where(newestFirst ? createdBefore(from) : createdAfter(from));
  const direction = newestFirst ? 'desc' : 'asc';
  return query
    .orderBy('created_at', direction)
    .orderBy('id', direction)
    .limit(options.limit + 1);
}
