/**
 * Answers an external agent has not collected. An agent Clarion does not run
 * (Claude Code over HTTP) whose call was cut before the person decided gets
 * the decision only by asking for it; some clients never learned the pending
 * ID, and their model retries the same call instead. The rows of such a
 * decision carry `awaiting_collection` until the agent reads the decision
 * (`wait_for_answer`, or that identical retry), so the retry is answered
 * with it instead of asking the person again. Rows written here keep their
 * `updated_at`: the mark is for the agent's side only, and no page shows it.
 */
import { CLARIFICATION_TYPE } from '../wire/index.js';
import type { RepoContext } from './context.js';
import { jsonValue } from './dialect.js';
import { toMessageRecord } from './messages.js';

/** Marks a decision's rows, recorded with no call of its agent to take it, for collection. */
export async function markAwaitingCollection(
  ctx: RepoContext,
  messageIds: readonly string[],
): Promise<void> {
  if (messageIds.length === 0) return;
  await ctx.db
    .updateTable('task_session_messages')
    .set({ metadata: ctx.dialect.metadataSet([['awaiting_collection', jsonValue(true)]]) })
    .where('id', 'in', messageIds)
    .execute();
}

/** The agent read the decision of `pendingId`: nothing is left to collect. */
export async function markCollected(ctx: RepoContext, pendingId: string): Promise<void> {
  await ctx.db
    .updateTable('task_session_messages')
    .set({ metadata: ctx.dialect.metadataRemove(['awaiting_collection']) })
    .where(ctx.dialect.pendingId(), '=', pendingId)
    .where(ctx.dialect.metadataFlag('awaiting_collection'))
    .execute();
}

/**
 * The session's newest question, when it awaits collection and was asked
 * with `fingerprint`: the pending ID a retry of that very call collects. A
 * question asked after it means the call was not retried but moved on.
 */
export async function collectableRetry(
  ctx: RepoContext,
  sessionId: string,
  fingerprint: string,
): Promise<string | undefined> {
  const row = await ctx.db
    .selectFrom('task_session_messages')
    .selectAll()
    .where('task_session_id', '=', sessionId)
    .where('type', '=', CLARIFICATION_TYPE)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  const meta = row && toMessageRecord(row).metadata;
  if (meta?.awaiting_collection !== true || meta.request_fingerprint !== fingerprint) {
    return undefined;
  }
  return typeof meta.pending_id === 'string' ? meta.pending_id : undefined;
}
