/**
 * "Always allow" rules (issue 15): the registry's `consentRules` port over the
 * store, and the REST reads and revokes. A rule covers one tool call as its
 * person saw it: the tool (kind) and the whole command, in the workspace of
 * the task it was made in and the folder that task's agent works in
 * (`agentFolder`, as its agent was started). A person lists and revokes their own
 * rules; an admin sees and revokes everyone's. Someone else's rule is
 * `not_found` to anyone else, the same as one that does not exist. A rule
 * answers only in its own person's tasks (`consentRuleFor`), so the rules a
 * person lists are every rule that answers for their agents. A revoke keeps
 * who made it and where (`consent-rule-revocations.ts`), listed to the rule's
 * person beside their rules.
 */
import type { AgentProfile } from '../agents/index.js';
import { adminStands, callerGone, type UserPrincipal } from '../auth/index.js';
import {
  consentRuleFor,
  consentRuleStands,
  getTask,
  keepConsentRule,
  listConsentRuleRevocations,
  listConsentRules,
  revokeConsentRuleRow,
  type ConsentRuleRecord,
  type ConsentRuleRevocationRecord,
  type RepoContext,
  type RuleScope,
  type Store,
} from '../store/index.js';
import { CONSENT_RULE_REVOCATIONS_LISTED_ROWS } from '../tunables.js';
import type { ConsentRuleToKeep, UserInputPorts } from '../user-input/index.js';
import { agentFolder } from './agent-folder.js';
import {
  DECISION_SURFACES,
  failure,
  type ConsentRuleListReply,
  type ConsentRuleRevocationView,
  type ConsentRuleView,
  type DecisionSurface,
  type Failure,
} from '../wire/index.js';

function surfaceOf(text: string): DecisionSurface {
  return DECISION_SURFACES.find((surface) => surface === text) ?? 'web';
}

function ruleView(record: ConsentRuleRecord): ConsentRuleView {
  return {
    id: record.id,
    agent_profile: record.agent_profile,
    tool_key: record.tool,
    command: record.command,
    scope:
      record.workspace_id === null || record.cwd === null
        ? null
        : {
            workspace_id: record.workspace_id,
            workspace_name: record.workspace_name,
            cwd: record.cwd,
          },
    set_by: { user_id: record.user_id, name: record.user_name },
    surface: surfaceOf(record.surface),
    created_at: record.created_at,
  };
}

function revocationView(record: ConsentRuleRevocationRecord): ConsentRuleRevocationView {
  return {
    ...ruleView(record),
    revoked_by: {
      user_id: record.revoked_by,
      name: record.revoked_by_name,
      surface: surfaceOf(record.revoked_surface),
    },
    revoked_at: record.revoked_at,
  };
}

/** Where agents work when neither their profile nor their task names a folder. */
export interface AgentFolders {
  readonly profiles: ReadonlyMap<string, AgentProfile>;
  readonly agentCwd: string;
}

/** Where `profile`'s agent in `taskId` works; a deleted task is nowhere. */
async function scopeOf(
  store: RepoContext,
  folders: AgentFolders,
  taskId: string,
  profile: string,
): Promise<RuleScope | undefined> {
  const task = await getTask(store, taskId);
  if (!task) return undefined;
  const cwd = agentFolder(folders.profiles.get(profile)?.cwd, task.cwd, folders.agentCwd);
  return { workspace_id: task.workspace_id, cwd };
}

/** The registry's port: rules are read at every consent, so a revoke counts at once. */
export function consentRulesPort(
  store: RepoContext,
  folders: AgentFolders,
): NonNullable<UserInputPorts['consentRules']> {
  return {
    async find(query) {
      const scope = await scopeOf(store, folders, query.taskId, query.profile);
      const rule = scope && (await consentRuleFor(store, { ...query, scope }));
      return rule
        ? { user_id: rule.user_id, name: rule.user_name, surface: surfaceOf(rule.surface) }
        : null;
    },
  };
}

/**
 * Keeps a person's "always" where its task's agent works, in `ctx` (the
 * decision's own transaction, `decisionRecorder`). A task deleted before its
 * rule was kept keeps none: nowhere is left for it to hold.
 */
export async function keepRuleWhere(
  ctx: RepoContext,
  folders: AgentFolders,
  { taskId, profile, toolKey, command, setBy }: ConsentRuleToKeep,
): Promise<void> {
  const scope = await scopeOf(ctx, folders, taskId, profile);
  if (!scope) return;
  await keepConsentRule(ctx, {
    userId: setBy.user_id,
    scope,
    profile,
    toolKey,
    command,
    surface: setBy.surface,
  });
}

/**
 * Whether the rule a standing answer `applies` still stands where its task's agent works, its
 * person still in the task's workspace, read in `tx`, the answer's own record
 * (`decisionRecorder`); a deleted task has none.
 */
export async function ruleStandsWhere(
  tx: RepoContext,
  folders: AgentFolders,
  { taskId, profile, toolKey, command, setBy }: ConsentRuleToKeep,
): Promise<boolean> {
  const scope = await scopeOf(tx, folders, taskId, profile);
  if (!scope) return false;
  return consentRuleStands(tx, { userId: setBy.user_id, scope, profile, toolKey, command });
}

/** The caller's rules and the newest revoked ones (an admin's: everyone's). */
export async function consentRulesOf(
  store: RepoContext,
  caller: UserPrincipal,
): Promise<ConsentRuleListReply> {
  const whose = caller.isAdmin ? null : caller.userId;
  const [rules, revoked] = await Promise.all([
    listConsentRules(store, whose),
    listConsentRuleRevocations(store, whose, CONSENT_RULE_REVOCATIONS_LISTED_ROWS),
  ]);
  return { rules: rules.map(ruleView), revoked: revoked.map(revocationView) };
}

/**
 * Revokes a rule the caller may see, recording that they did, on `surface`;
 * once committed, says whose it was (`owner`: an admin's revoke may end
 * someone else's rule). An admin's standing is read in the transaction that
 * revokes (`adminStands`): one deleted while the request ran revokes nothing.
 */
export async function revokeConsentRule(
  store: Store,
  caller: UserPrincipal,
  surface: DecisionSurface,
  ruleId: string,
): Promise<{ ok: true; owner: string } | Failure<'not_found' | 'unauthorized'>> {
  const by = { user_id: caller.userId, name: caller.name, surface };
  const whose = caller.isAdmin ? null : caller.userId;
  return store.transaction(async (tx) => {
    if (caller.isAdmin && !(await adminStands(tx, caller, [], false))) return callerGone();
    const owner = await revokeConsentRuleRow(tx, ruleId, whose, by);
    return owner === undefined
      ? failure('not_found', 'unknown rule')
      : { ok: true as const, owner };
  });
}

/**
 * A person's rules as the API reaches them: listed, and revoked with the
 * news told through `rulesChanged` once the revoke committed (the owner's
 * open lists read again, and admins'), whoever the caller is.
 */
export interface ConsentRuleService {
  list(caller: UserPrincipal): Promise<ConsentRuleListReply>;
  revoke(
    caller: UserPrincipal,
    surface: DecisionSurface,
    ruleId: string,
  ): Promise<{ ok: true; owner: string } | Failure<'not_found' | 'unauthorized'>>;
}

export function consentRuleService(deps: {
  readonly store: Store;
  readonly rulesChanged: (userId: string) => void;
}): ConsentRuleService {
  return {
    list: (caller) => consentRulesOf(deps.store, caller),
    async revoke(caller, surface, ruleId) {
      const revoked = await revokeConsentRule(deps.store, caller, surface, ruleId);
      if (revoked.ok) deps.rulesChanged(revoked.owner);
      return revoked;
    },
  };
}
