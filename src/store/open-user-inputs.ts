/**
 * The agent requests (consent, action, form) a registry waits on a person
 * for, kept while they wait. The registry holds them in memory only, so a
 * restart, or on PostgreSQL the death of the replica that held them, would
 * leave no trace that the agent asked. Recovery reads what is left here to
 * say in the transcript that each ended unanswered, and to tell open tabs.
 *
 * Invariants: a row is a copy of the last awaiting view the registry
 * published, never read back as the request's authority; taking a row
 * (`takeOpenUserInput`) deletes it, so whoever takes it is the only one that
 * writes about its end. A session's deletion deletes its rows.
 */
import { sessionInScope, type SessionScope } from './leases.js';
import type { RepoContext } from './context.js';
import type { UserInputView } from '../wire/index.js';

/** Keeps an awaiting request's latest view. */
export async function keepOpenUserInput(ctx: RepoContext, view: UserInputView): Promise<void> {
  const json = JSON.stringify(view);
  await ctx.db
    .insertInto('open_user_inputs')
    .values({ id: view.id, session_id: view.session_id, view: json, created_at: view.created_at })
    .onConflict((conflict) => conflict.column('id').doUpdateSet({ view: json }))
    .execute();
}

/** The request no longer waits on a person (answered, settled, its session gone). */
export async function forgetOpenUserInput(ctx: RepoContext, id: string): Promise<void> {
  await ctx.db.deleteFrom('open_user_inputs').where('id', '=', id).execute();
}

/** The requests left waiting in the sessions of `scope`, oldest first. */
export async function openUserInputsIn(
  ctx: RepoContext,
  scope: SessionScope,
): Promise<UserInputView[]> {
  const rows = await ctx.db
    .selectFrom('open_user_inputs')
    .select('view')
    .where(sessionInScope(ctx, scope, 'open_user_inputs.session_id'))
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((row) => JSON.parse(row.view) as UserInputView);
}

/** Deletes the row and returns its view; undefined when another recovery took it first. */
export async function takeOpenUserInput(
  ctx: RepoContext,
  id: string,
): Promise<UserInputView | undefined> {
  const row = await ctx.db
    .deleteFrom('open_user_inputs')
    .where('id', '=', id)
    .returning('view')
    .executeTakeFirst();
  return row ? (JSON.parse(row.view) as UserInputView) : undefined;
}
