/**
 * The server's own long-lived keys (the VAPID key pair of Web Push), one row
 * per name. A key is written once and never replaced: `claimServerKey`
 * inserts only when the name is absent and then reads the row back, so two
 * servers starting at once on one database converge on the first writer's
 * value. Keys that must match (a public and a private half) share one row.
 */
import type { RepoContext } from './context.js';

/** The value stored under `name`, or `undefined` when none was written yet. */
export async function getServerKey(ctx: RepoContext, name: string): Promise<string | undefined> {
  const row = await ctx.db
    .selectFrom('server_keys')
    .select('value')
    .where('name', '=', name)
    .executeTakeFirst();
  return row?.value;
}

/** Stores `value` under `name` unless a value is there already; returns the one that is kept. */
export async function claimServerKey(
  ctx: RepoContext,
  name: string,
  value: string,
): Promise<string> {
  await ctx.db
    .insertInto('server_keys')
    .values({ name, value, created_at: ctx.clock.timestamp() })
    .onConflict((conflict) => conflict.column('name').doNothing())
    .execute();
  const kept = await getServerKey(ctx, name);
  // Keys are never deleted, so the row that refused the insert is still there.
  if (kept === undefined) throw new Error(`server key "${name}" vanished after its insert`);
  return kept;
}
