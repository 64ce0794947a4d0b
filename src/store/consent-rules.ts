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
 * see nor revoke a rule that is not theirs. A rule holds where it was made,
 * as Claude Code's "always" holds in one project: the task's workspace and
 * the folder its agent works in (`cwd`, given by the caller), so the same
 * command in another workspace or checkout of theirs asks. (person, profile, tool,
 * command, workspace, folder) is unique; keeping an existing rule again
 * leaves the first one, with its time, in place.
 *
 * Older rows match no consent and stay listed so their person sees them and
 * can revoke them: one kept before rules named their command (`command`
 * NULL, keyed on the bare kind), and one kept before rules were scoped
 * (`workspace_id` NULL, keyed without a scope). Where such a rule was made is
 * not known, so any match would allow the command in workspaces and folders
 * the person never allowed it in; the cost is one question, whose "Always
 * allow" keeps a scoped rule.
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
  /** The workspace the rule holds in; null: kept before rules were scoped, it answers nothing. */
  readonly workspace_id: string | null;
  /** That workspace's name now; null once it is gone. */
  readonly workspace_name: string | null;
  /** The folder the rule holds in; null only for a rule kept before rules were scoped. */
  readonly cwd: string | null;
  readonly surface: string;
  readonly created_at: string;
}

/** Where a rule holds: a task's workspace and the folder its agent works in. */
export interface RuleScope {
  readonly workspace_id: string;
  readonly cwd: string;
}

export interface NewConsentRule {
  readonly userId: string;
  readonly scope: RuleScope;
  readonly profile: string;
  readonly toolKey: string;
  readonly command: string;
  readonly surface: string;
}

/**
 * The matched key of a tool and command where they were allowed: a digest, so
 * that a command of any length fits the unique index, which so includes the
 * scope; never equal to a bare kind (v1) or an unscoped digest (v2) kept before.
 */
function ruleKey(scope: RuleScope, toolKey: string, command: string): string {
  return `v3:${createHash('sha256')
    .update(JSON.stringify([scope.workspace_id, scope.cwd, toolKey, command]))
    .digest('hex')}`;
}

/**
 * Keeps a rule where it was chosen; a second "always" for the same person, profile, tool,
 * command and place changes nothing.
 */
export async function keepConsentRule(ctx: RepoContext, rule: NewConsentRule): Promise<void> {
  const { scope } = rule;
  const now = ctx.clock.timestamp();
  await ctx.db
    .insertInto('consent_rules')
    .values({
      id: ctx.ids.next(),
      user_id: rule.userId,
      agent_profile: rule.profile,
      tool_key: ruleKey(scope, rule.toolKey, rule.command),
      tool: rule.toolKey,
      command: rule.command,
      workspace_id: scope.workspace_id,
      cwd: scope.cwd,
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
    .leftJoin('workspaces as w', 'w.id', 'r.workspace_id')
    .select([
      'r.id',
      'r.user_id',
      'u.name as user_name',
      'r.agent_profile',
      // A rule kept before commands were named holds its bare tool in `tool_key`.
      (eb) => eb.fn.coalesce('r.tool', 'r.tool_key').as('tool'),
      'r.command',
      'r.workspace_id',
      'w.name as workspace_name',
      'r.cwd',
      'r.surface',
      'r.created_at',
    ]);
}

/**
 * The rule that answers a consent for `profile`'s `toolKey` and `command` in `taskId`, whose
 * agent works at `scope`: the one the task's own person set there, if they are still a member
 * of the task's workspace. A task whose person was deleted has no rule; every consent there
 * asks.
 */
export function consentRuleFor(
  ctx: RepoContext,
  query: { taskId: string; scope: RuleScope; profile: string; toolKey: string; command: string },
): Promise<ConsentRuleRecord | undefined> {
  return (
    rulesWithNames(ctx)
      .innerJoin('tasks as t', 't.created_by', 'r.user_id')
      .innerJoin('workspace_members as wm', (join) =>
        join.onRef('wm.workspace_id', '=', 't.workspace_id').onRef('wm.user_id', '=', 'r.user_id'),
      )
      .where('t.id', '=', query.taskId)
      .where('r.agent_profile', '=', query.profile)
      .where('r.tool_key', '=', ruleKey(query.scope, query.toolKey, query.command))
      // The key names the place; the task must be in it, and an unscoped row never is.
      .whereRef('r.workspace_id', '=', 't.workspace_id')
      .where('r.command', 'is not', null)
      .limit(ONE_ROW)
      .executeTakeFirst()
  );
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

/**
 * Whether `userId`'s rule for `profile`'s `toolKey` and `command` at `scope` still stands, and
 * they still belong to its workspace, read in the transaction that records its answer. On
 * PostgreSQL both rows are locked for share: a revoke's or a removal's delete then waits for
 * that commit, or this read waits for the delete's and finds nothing. SQLite's one writer
 * orders them the same way.
 */
export async function consentRuleStands(
  tx: RepoContext,
  query: { userId: string; scope: RuleScope; profile: string; toolKey: string; command: string },
): Promise<boolean> {
  const row = await tx.db
    .selectFrom('consent_rules')
    .select('id')
    .where('user_id', '=', query.userId)
    .where('agent_profile', '=', query.profile)
    .where('tool_key', '=', ruleKey(query.scope, query.toolKey, query.command))
    .$if(tx.dialect.driver === 'postgres', (select) => select.forShare())
    .limit(ONE_ROW)
    .executeTakeFirst();
  if (row === undefined) return false;
  const member = await tx.db
    .selectFrom('workspace_members')
    .select('user_id')
    .where('workspace_id', '=', query.scope.workspace_id)
    .where('user_id', '=', query.userId)
    .$if(tx.dialect.driver === 'postgres', (select) => select.forShare())
    .executeTakeFirst();
  return member !== undefined;
}
