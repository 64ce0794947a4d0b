/**
 * Revoked "Always allow" rules. A revoke is a person's decision about future
 * consent, so, like every decision, it keeps who made it and where: the
 * rule's row goes (from the commit on it answers nothing, on every server)
 * and its copy, with who revoked it, where and when, is kept by the same
 * transaction. A revocation so never names a rule that still answers, and no
 * rule goes without one. The revoking person's name is kept as it was then,
 * as the decision log keeps a responder's.
 */
import type { RepoContext } from './context.js';
import type { ConsentRuleRecord } from './consent-rules.js';

/** Who revoked a rule, their name then, and where (`DecisionSurface`). */
export interface RuleRevoker {
  readonly user_id: string;
  readonly name: string;
  readonly surface: string;
}

export interface ConsentRuleRevocationRecord extends ConsentRuleRecord {
  readonly revoked_by: string;
  readonly revoked_by_name: string;
  readonly revoked_surface: string;
  readonly revoked_at: string;
}

/**
 * Revokes a rule, only `userId`'s unless null, as `by`; whose rule went, or
 * undefined when none did. Run
 * it in a transaction (`Store.transaction`): the delete and its record commit
 * together, and of two revokes of one rule only the first finds it.
 */
export async function revokeConsentRuleRow(
  tx: RepoContext,
  ruleId: string,
  userId: string | null,
  by: RuleRevoker,
): Promise<string | undefined> {
  let statement = tx.db.deleteFrom('consent_rules').where('id', '=', ruleId);
  if (userId !== null) statement = statement.where('user_id', '=', userId);
  const gone = await statement.returningAll().executeTakeFirst();
  if (!gone) return undefined;
  const now = tx.clock.timestamp();
  await tx.db
    .insertInto('consent_rule_revocations')
    .values({
      id: gone.id,
      user_id: gone.user_id,
      agent_profile: gone.agent_profile,
      // A rule kept before commands were named holds its bare tool in `tool_key`.
      tool: gone.tool ?? gone.tool_key,
      command: gone.command,
      workspace_id: gone.workspace_id,
      cwd: gone.cwd,
      surface: gone.surface,
      created_at: gone.created_at,
      revoked_by: by.user_id,
      revoked_by_name: by.name,
      revoked_surface: by.surface,
      revoked_at: now,
      updated_at: now,
    })
    .execute();
  return gone.user_id;
}

/** The newest `limit` revocations of `userId`'s rules, or of everyone's when null. */
export function listConsentRuleRevocations(
  ctx: RepoContext,
  userId: string | null,
  limit: number,
): Promise<ConsentRuleRevocationRecord[]> {
  const all = ctx.db
    .selectFrom('consent_rule_revocations as r')
    .innerJoin('users as u', 'u.id', 'r.user_id')
    .leftJoin('workspaces as w', 'w.id', 'r.workspace_id')
    .select([
      'r.id',
      'r.user_id',
      'u.name as user_name',
      'r.agent_profile',
      'r.tool',
      'r.command',
      'r.workspace_id',
      'w.name as workspace_name',
      'r.cwd',
      'r.surface',
      'r.created_at',
      'r.revoked_by',
      'r.revoked_by_name',
      'r.revoked_surface',
      'r.revoked_at',
    ]);
  const scoped = userId === null ? all : all.where('r.user_id', '=', userId);
  return scoped.orderBy('r.revoked_at', 'desc').orderBy('r.id', 'desc').limit(limit).execute();
}
