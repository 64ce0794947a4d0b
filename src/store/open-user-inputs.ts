/**
 * The agent requests (consent, action, form) a registry waits on a person
 * for, kept while they wait, and a person's decision on one until the agent
 * is known to have gone on past it. The registry holds them in memory only,
 * so a restart, or on PostgreSQL the death of the replica that held them,
 * would leave no trace that the agent asked, nor that a decision recorded
 * just before never reached it. Recovery reads what is left here to say so
 * in the transcript, and to tell open tabs.
 *
 * Invariants: a row is a copy of the last view the registry published (or,
 * once decided, the view its decision left), never read back as the
 * request's authority. A decided copy (`decided_turn_id` set) is written in
 * the decision's own session write and is never turned back into a waiting
 * one. Taking a row (`takeOpenUserInput`) deletes it, so whoever takes it is
 * the only one that writes about its end. A session's deletion deletes its
 * rows.
 */
import { sessionInScope, type SessionScope } from './leases.js';
import type { RepoContext } from './context.js';
import type { UserInputView } from '../wire/index.js';

/** A copy as recovery reads it. */
export interface OpenUserInput {
  readonly view: UserInputView;
  /** The turn a person's decision on it was recorded in; null while it waits. */
  readonly decidedTurnId: string | null;
}

/**
 * Keeps an awaiting request's latest view. A copy a decision already
 * replaced stays as it is: a waiting view published late must not undo it.
 */
export async function keepOpenUserInput(ctx: RepoContext, view: UserInputView): Promise<void> {
  await keepCopy(ctx, view, null);
}

/**
 * In the write that records a person's decision: the copy becomes the
 * decided view, made in `turnId`, so recovery never calls it unanswered.
 */
export async function keepDecidedUserInput(
  ctx: RepoContext,
  view: UserInputView,
  turnId: string,
): Promise<void> {
  await keepCopy(ctx, view, turnId);
}

/** Inserts or replaces the copy; a waiting view (`decidedTurnId` null) never replaces a decided one. */
async function keepCopy(
  ctx: RepoContext,
  view: UserInputView,
  decidedTurnId: string | null,
): Promise<void> {
  const json = JSON.stringify(view);
  await ctx.db
    .insertInto('open_user_inputs')
    .values({
      id: view.id,
      session_id: view.session_id,
      view: json,
      created_at: view.created_at,
      decided_turn_id: decidedTurnId,
    })
    .onConflict((conflict) =>
      decidedTurnId === null
        ? conflict
            .column('id')
            .doUpdateSet({ view: json })
            .where('open_user_inputs.decided_turn_id', 'is', null)
        : conflict.column('id').doUpdateSet({ view: json, decided_turn_id: decidedTurnId }),
    )
    .execute();
}

/** A decided request moved on (armed, due): its copy follows, so recovery's event is newest. */
export async function refreshDecidedUserInput(
  ctx: RepoContext,
  view: UserInputView,
): Promise<void> {
  await ctx.db
    .updateTable('open_user_inputs')
    .set({ view: JSON.stringify(view) })
    .where('id', '=', view.id)
    .where('decided_turn_id', 'is not', null)
    .execute();
}

/**
 * The decision kept in the copy was refused after all (its row superseded):
 * the request still waits, and recovery says so of it.
 */
export async function undecideUserInput(ctx: RepoContext, id: string): Promise<void> {
  await ctx.db
    .updateTable('open_user_inputs')
    .set({ decided_turn_id: null })
    .where('id', '=', id)
    .execute();
}

/** The request is over and nothing is left to say of it (settled, its session gone). */
export async function forgetOpenUserInput(ctx: RepoContext, id: string): Promise<void> {
  await ctx.db.deleteFrom('open_user_inputs').where('id', '=', id).execute();
}

/**
 * The turn `turnId` ended: the agent went on past the decisions recorded in
 * it, but those of `owed` (requests whose decision still waits to be sent to
 * the agent as a follow-up), which stay until they settle.
 */
export async function forgetDecidedIn(
  ctx: RepoContext,
  sessionId: string,
  turnId: string,
  owed: readonly string[] = [],
): Promise<void> {
  let forget = ctx.db
    .deleteFrom('open_user_inputs')
    .where('session_id', '=', sessionId)
    .where('decided_turn_id', '=', turnId);
  if (owed.length > 0) forget = forget.where('id', 'not in', owed);
  await forget.execute();
}

/** The request IDs of the copies left in the sessions of `scope`, oldest first. */
export async function openUserInputsIn(
  ctx: RepoContext,
  scope: SessionScope,
): Promise<{ id: string; session_id: string }[]> {
  return ctx.db
    .selectFrom('open_user_inputs')
    .select(['id', 'session_id'])
    .where(sessionInScope(ctx, scope, 'open_user_inputs.session_id'))
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** Deletes the row and returns its copy; undefined when another recovery took it first. */
export async function takeOpenUserInput(
  ctx: RepoContext,
  id: string,
): Promise<OpenUserInput | undefined> {
  const row = await ctx.db
    .deleteFrom('open_user_inputs')
    .where('id', '=', id)
    .returning(['view', 'decided_turn_id'])
    .executeTakeFirst();
  return row
    ? { view: JSON.parse(row.view) as UserInputView, decidedTurnId: row.decided_turn_id }
    : undefined;
}
