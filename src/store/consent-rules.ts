/**
 * "Always allow" rules in the store: a person's standing answer to consent
 * requests for one agent profile's tool call as they saw it, its tool (kind)
 * and its whole command: never every call of a kind, which would decide for
 * them on commands they were not shown. The row is the only truth about a
 * rule: the registry asks for it at every consent request (never caches it),
 * so a revoke takes effect at the next request on every server.
 *
 * A rule is its person's alone: it answers consents only in tasks that person
 * started (`tasks.created_by`), while they still belong to the task's
 * workspace. Another member's agent asks its own person, who could neither
 * see nor revoke a rule that is not theirs. (person, profile, tool, command)
 * is unique; keeping an existing rule again leaves the first one, with its
 * time, in place. A row kept before rules named their command (its
 * `command` NULL, keyed on the bare kind) matches no consent: it stays
 * listed so its person sees it and can revoke it.
 */
import { createHash } from 'node:crypto';
import { ONE_ROW } from './compiled.js';
import type { RepoContext } from './context.js';

export interface ConsentRuleRecord {
  readonly id: string;
  readonly user_id: string;
  /** The person's name now (from `users`), not when the rule was made. */
  readonly user_name: string;
  readonly agent_profile: string;
  /** The tool call's kind (else its title); a rule kept before commands were named has only this. */
  readonly tool: string;
  /** The whole command the rule covers; null: kept under a bare kind, it answers nothing. */
  readonly command: string | null;
  readonly surface: string;
  readonly created_at: string;
}

export interface NewConsentRule {
  readonly userId: string;
  readonly profile: string;
  readonly toolKey: string;
  readonly command: string;
  readonly surface: string;
}

/**
 * The matched key of a tool and command: a digest, so that a command of any
 * length fits the unique index, and never equal to a bare kind kept before.
 */
function ruleKey(toolKey: string, command: string): string {
  return `v2:${createHash('sha256')
    .update(JSON.stringify([toolKey, command]))
    .digest('hex')}`;
}

/** Keeps a rule; a second "always" for the same person, profile, tool and command changes nothing. */
export async function keepConsentRule(ctx: RepoContext, rule: NewConsentRule): Promise<void> {
  const now = ctx.clock.timestamp();
  await ctx.db
    .insertInto('consent_rules')
    .values({
      id: ctx.ids.next(),
      user_id: rule.userId,
      agent_profile: rule.profile,
      tool_key: ruleKey(rule.toolKey, rule.command),
      tool: rule.toolKey,
      command: rule.command,
      surface: rule.surface,
      created_at: now,
      updated_at: now,
    })
    .onConflict((conflict) =>
      conflict.columns(['user_id', 'agent_profile', 'tool_key']).doNothing(),
    )
    .execute();
}

function rulesWithNames(ctx: RepoContext) {
  return ctx.db
    .selectFrom('consent_rules as r')
    .innerJoin('users as u', 'u.id', 'r.user_id')
    .select([
      'r.id',
      'r.user_id',
      'u.name as user_name',
      'r.agent_profile',
      // A rule kept before commands were named holds its bare tool in `tool_key`.
      (eb) => eb.fn.coalesce('r.tool', 'r.tool_key').as('tool'),
      'r.command',
      'r.surface',
      'r.created_at',
    ]);
}

/**
 * The rule that answers a consent for `profile`'s `toolKey` and `command` in `taskId`: the
 * one the task's own person set, if they are still a member of its workspace.
 * A task whose person was deleted has no rule; every consent there asks.
 */
export async function consentRuleFor(
  ctx: RepoContext,
  query: { taskId: string; profile: string; toolKey: string; command: string },
): Promise<ConsentRuleRecord | undefined> {
  return rulesWithNames(ctx)
    .innerJoin('tasks as t', 't.created_by', 'r.user_id')
    .innerJoin('workspace_members as wm', (join) =>
      join.onRef('wm.workspace_id', '=', 't.workspace_id').onRef('wm.user_id', '=', 'r.user_id'),
    )
    .where('t.id', '=', query.taskId)
    .where('r.agent_profile', '=', query.profile)
    .where('r.tool_key', '=', ruleKey(query.toolKey, query.command))
    .where('r.command', 'is not', null)
    .limit(ONE_ROW)
    .executeTakeFirst();
}

/** Every rule of `userId`, or of everyone when `userId` is null; newest first. */
export function listConsentRules(
  ctx: RepoContext,
  userId: string | null,
): Promise<ConsentRuleRecord[]> {
  const all = rulesWithNames(ctx);
  const scoped = userId === null ? all : all.where('r.user_id', '=', userId);
  return scoped.orderBy('r.created_at', 'desc').orderBy('r.id', 'desc').execute();
}

/** Deletes a rule, only `userId`'s unless null; whether a row went. */
export async function deleteConsentRule(
  ctx: RepoContext,
  ruleId: string,
  userId: string | null,
): Promise<boolean> {
  let statement = ctx.db.deleteFrom('consent_rules').where('id', '=', ruleId);
  if (userId !== null) statement = statement.where('user_id', '=', userId);
  const result = await statement.executeTakeFirst();
  return result.numDeletedRows > 0n;
}
