/**
 * The decision log: every transcript row that records a person's decision (a
 * clarification row answered, skipped or cancelled, or a consent, action or
 * form decision), newest first, across the sessions a user may see. Rows that
 * carry no responder (answers kept before Clarion recorded who decided,
 * expiries) are not decisions. Which rows are decisions, and the filters, are
 * decided in SQL, not after the page is read, so a page is full whenever
 * more match.
 */
import { constantText } from './compiled.js';
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import {
  CLARIFICATION_TYPE,
  DECISION_KINDS,
  USER_INPUT_DECISION_TYPE,
  USER_INPUT_DECISION_UNKEPT_TYPE,
  type DecisionKind,
} from '../wire/index.js';
import type { Metadata, RepoContext } from './context.js';
import { MESSAGE_COLUMNS, toMessageRecord, type MessageRecord } from './messages.js';

/** Where a page ended: its last decision's time and row. */
export interface DecisionCursor {
  readonly decidedAt: string;
  readonly id: string;
}

export interface DecisionRow {
  readonly message: MessageRecord;
  readonly taskTitle: string;
  /** Kept from a deleted session (`archiveDecisions`). */
  readonly sessionDeleted: boolean;
}

export interface DecisionPage {
  readonly rows: DecisionRow[];
  readonly next: DecisionCursor | null;
}

/** Narrows the log; every field optional, all of them combined. */
export interface DecisionFilter {
  readonly taskId?: string | undefined;
  readonly kind?: DecisionKind | undefined;
  /** Who decided (`responded_by.user_id`). */
  readonly userId?: string | undefined;
  /** When it was decided: `since` inclusive, `until` exclusive. */
  readonly since?: string | undefined;
  readonly until?: string | undefined;
}

/** Who may read: a user the sessions of their workspaces, an agent only its own session. */
export type DecisionReader =
  | { readonly kind: 'user'; readonly userId: string }
  | { readonly kind: 'agent'; readonly sessionId: string };

/** The registry's kinds a decision row may name: every kind of the log but a question. */
const USER_INPUT_DECISION_KINDS = DECISION_KINDS.filter((kind) => kind !== 'question');
/** A clarification row's statuses that a person decided (an expiry is nobody's decision). */
const DECIDED_QUESTION_STATUSES = ['answered', 'rejected', 'cancelled'] as const;

function oneOf(expression: RawBuilder<string | null>, values: readonly string[]) {
  return sql<SqlBool>`${expression} IN (${sql.join(values.map(constantText))})`;
}

/** Which transcript rows record a person's decision (alias `m`). */
function isDecision(ctx: RepoContext): RawBuilder<SqlBool> {
  const responder = ctx.dialect.metadataText('responded_by', 'm');
  const kind = ctx.dialect.metadataText('kind', 'm');
  const status = ctx.dialect.metadataText('status', 'm');
  return sql<SqlBool>`${responder} IS NOT NULL AND (
    (m.type = ${constantText(USER_INPUT_DECISION_TYPE)} AND ${oneOf(kind, USER_INPUT_DECISION_KINDS)})
    OR (m.type = ${constantText(CLARIFICATION_TYPE)} AND ${oneOf(status, DECIDED_QUESTION_STATUSES)}))`;
}

const LIVE_COLUMNS = MESSAGE_COLUMNS.map((column) => `m.${column}` as const);

/**
 * When the row's decision was made (alias `m`). Not its `updated_at`: an
 * answer's row is written again when the answer reaches its agent, which
 * for an agent that was gone may be hours later. Registry decision rows are
 * written once, at the decision; answers kept before `responded_at` was
 * recorded have only their row's time.
 */
function decidedAt(ctx: RepoContext): RawBuilder<string> {
  return sql<string>`COALESCE(${ctx.dialect.metadataText('responded_at', 'm')}, m.updated_at)`;
}

/**
 * Keeps the decisions of the sessions `where` names before their rows go:
 * the log records who decided what, and a deleted task or session must not
 * take that with it. Call it in the deleting transaction.
 */
export async function archiveDecisions(
  ctx: RepoContext,
  where: { readonly sessionId: string } | { readonly taskId: string },
): Promise<void> {
  const decisions = ctx.db
    .selectFrom('task_session_messages as m')
    .innerJoin('tasks as t', 't.id', 'm.task_id')
    .select([...LIVE_COLUMNS, 't.workspace_id', 't.title as task_title'])
    .select(sql.val(ctx.clock.timestamp()).as('archived_at'))
    .where(isDecision(ctx))
    .where(
      'sessionId' in where
        ? sql<SqlBool>`m.task_session_id = ${where.sessionId}`
        : // Through the task's sessions: messages are indexed by session, not by task.
          sql<SqlBool>`m.task_session_id IN (SELECT s.id FROM task_sessions s WHERE s.task_id = ${where.taskId})`,
    );
  await ctx.db
    .insertInto('decision_archive')
    .columns([...MESSAGE_COLUMNS, 'workspace_id', 'task_title', 'archived_at'])
    .expression(decisions)
    // Two deletes of one session at once: the first to commit kept them.
    .onConflict((conflict) => conflict.column('id').doNothing())
    .execute();
}

/**
 * A page of the log: the decisions still in transcripts and those kept from
 * deleted sessions, one ordering over both. Which rows are decisions, and the
 * filters, are applied in SQL.
 */
export async function decisionPage(
  ctx: RepoContext,
  reader: DecisionReader,
  options: { before?: DecisionCursor | undefined; limit: number; filter?: DecisionFilter },
): Promise<DecisionPage> {
  const filter = options.filter ?? {};
  const live = ctx.db
    .selectFrom('task_session_messages as m')
    .innerJoin('tasks as t', 't.id', 'm.task_id')
    .select([...LIVE_COLUMNS, 't.workspace_id', 't.title as task_title'])
    .select([sql.lit(0).as('archived'), decidedAt(ctx).as('decided_at')])
    .where(isDecision(ctx));
  const archived = ctx.db
    .selectFrom('decision_archive as m')
    .select([...LIVE_COLUMNS, 'm.workspace_id', 'm.task_title'])
    .select([sql.lit(1).as('archived'), decidedAt(ctx).as('decided_at')]);
  let query = ctx.db.selectFrom(live.unionAll(archived).as('d')).selectAll('d');
  if (reader.kind === 'agent') {
    query = query.where('d.task_session_id', '=', reader.sessionId);
  } else {
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('workspace_members as wm')
          .select('wm.user_id')
          .whereRef('wm.workspace_id', '=', 'd.workspace_id')
          .where('wm.user_id', '=', reader.userId),
      ),
    );
  }
  if (filter.taskId !== undefined) query = query.where('d.task_id', '=', filter.taskId);
  if (filter.kind === 'question') {
    query = query.where('d.type', '=', constantText(CLARIFICATION_TYPE));
  } else if (filter.kind !== undefined) {
    const kind = ctx.dialect.metadataText('kind', 'd');
    query = query
      .where('d.type', '=', constantText(USER_INPUT_DECISION_TYPE))
      .where(sql<SqlBool>`${kind} = ${filter.kind}`);
  }
  if (filter.userId !== undefined) {
    const decider = ctx.dialect.metadataFieldText('responded_by', 'user_id', 'd');
    query = query.where(sql<SqlBool>`${decider} = ${filter.userId}`);
  }
  if (filter.since !== undefined) query = query.where('d.decided_at', '>=', filter.since);
  if (filter.until !== undefined) query = query.where('d.decided_at', '<', filter.until);
  const before = options.before;
  if (before) {
    query = query.where((eb) =>
      eb.or([
        eb('d.decided_at', '<', before.decidedAt),
        eb.and([eb('d.decided_at', '=', before.decidedAt), eb('d.id', '<', before.id)]),
      ]),
    );
  }
  // One extra row tells whether another page exists without a count query.
  const found = await query
    .orderBy('d.decided_at', 'desc')
    .orderBy('d.id', 'desc')
    .limit(options.limit + 1)
    .execute();
  const kept = found.slice(0, options.limit);
  const rows = kept.map(
    ({ task_title: taskTitle, workspace_id: _workspace, archived, decided_at: _at, ...row }) => ({
      message: toMessageRecord(row),
      taskTitle,
      sessionDeleted: archived === 1,
    }),
  );
  const last = kept.at(-1);
  const next =
    found.length > options.limit && last ? { decidedAt: last.decided_at, id: last.id } : null;
  return { rows, next };
}

/**
 * Turns the decision rows of a registry request in its session into rows that
 * record no decision (`USER_INPUT_DECISION_UNKEPT_TYPE`, with `unkept`'s text
 * and metadata), and returns them as they now are, for the write to publish:
 * a watcher who heard of such a row hears it no longer decides. Before a
 * decision is kept, the only such row there can be is one whose answer was
 * refused though its commit went through (late, or with its reply lost): it
 * must not stand in the log beside the decision that did, nor alone. `rowId`
 * narrows it to that one row (the refused answer's own, once its write ended).
 */
export async function supersedeUnkeptDecisions(
  ctx: RepoContext,
  target: { sessionId: string; requestId: string; rowId?: string },
  unkept: { content: string; metadata: Metadata },
): Promise<MessageRecord[]> {
  const request = ctx.dialect.metadataText('user_input_request_id');
  let query = ctx.db
    .updateTable('task_session_messages')
    .set({
      type: USER_INPUT_DECISION_UNKEPT_TYPE,
      content: unkept.content,
      metadata: JSON.stringify(unkept.metadata),
      updated_at: ctx.clock.timestamp(),
    })
    .where('task_session_id', '=', target.sessionId)
    .where('type', '=', constantText(USER_INPUT_DECISION_TYPE))
    .where(sql<SqlBool>`${request} = ${target.requestId}`);
  if (target.rowId !== undefined) query = query.where('id', '=', target.rowId);
  const rows = await query.returningAll().execute();
  return rows.map(toMessageRecord);
}

/** Whether a transcript row exists: what a write whose commit reply was lost actually did. */
export async function messageExists(ctx: RepoContext, id: string): Promise<boolean> {
  const row = await ctx.db
    .selectFrom('task_session_messages')
    .select('id')
    .where('id', '=', id)
    .executeTakeFirst();
  return row !== undefined;
}
