/**
 * Visibility: which tasks and sessions a principal may see. Every read that
 * could reveal a task goes through here, so "unknown" and "not yours" can be
 * answered the same way.
 */
import { sql, type RawBuilder } from 'kysely';
import type { Principal } from '../auth/index.js';
import { compiledStatement } from './compiled.js';
import type { RepoContext } from './context.js';
import {
  deliveryOwnerColumns,
  readOwners,
  type DeliveryOwners,
  type OwnerTerms,
} from './leases.js';
import { toMessageRecord, type MessageRecord } from './messages.js';

/** Whether `principal` may see the session; false for an unknown session too. */
export async function canSeeSession(
  ctx: RepoContext,
  principal: Principal,
  sessionId: string,
): Promise<boolean> {
  if (principal.kind === 'agent') return principal.sessionId === sessionId;
  const rows = await sessionMemberStatement(ctx, '', sessionId, principal.userId);
  return rows.length > 0;
}

const sessionMemberStatement = compiledStatement(
  'session member',
  (ctx: RepoContext, sessionId: string, userId: string) =>
    ctx.db
      .selectFrom('task_sessions as s')
      .innerJoin('tasks as t', 't.id', 's.task_id')
      .innerJoin('workspace_members as wm', 'wm.workspace_id', 't.workspace_id')
      .select('s.id')
      .where('s.id', '=', sessionId)
      .where('wm.user_id', '=', userId),
);

/** One bundle's rows and whether the principal may see their session. */
export interface PrincipalBundle {
  /** The bundle's rows in bundle order; empty when the pending ID is unknown. */
  rows: MessageRecord[];
  /** `canSeeSession` for the first row's session; false when there are no rows. */
  visible: boolean;
  /**
   * The agent profile of the rows' session (set once, at its creation), so a
   * delivery that needs it reads no session; undefined when there are no rows.
   */
  agentProfile: string | undefined;
  /** `deliveryOwners` as the same read judged them, when asked for and the bundle exists. */
  owners?: DeliveryOwners;
}

type Viewer = { kind: 'agent'; sessionId: string } | { kind: 'user'; userId: string };

/**
 * `canSeeSession` for the row's own session, as an expression over
 * `task_session_messages`: agents see only their session, users the sessions
 * of their workspaces (admins included: membership decides, as there).
 */
function rowVisibleTo(ctx: RepoContext, viewer: Viewer): RawBuilder<boolean> {
  const rowSession = sql.ref<string>('task_session_messages.task_session_id');
  if (viewer.kind === 'agent') return sql<boolean>`(${rowSession} = ${viewer.sessionId})`;
  const member = ctx.db
    .selectFrom('task_sessions as s')
    .innerJoin('tasks as t', 't.id', 's.task_id')
    .innerJoin('workspace_members as wm', 'wm.workspace_id', 't.workspace_id')
    .select('s.id')
    .where('s.id', '=', rowSession)
    .where('wm.user_id', '=', viewer.userId);
  return sql<boolean>`EXISTS ${member}`;
}

function viewerOf(principal: Principal): Viewer {
  return principal.kind === 'agent'
    ? { kind: 'agent', sessionId: principal.sessionId }
    : { kind: 'user', userId: principal.userId };
}

function bundleQuery(ctx: RepoContext, viewer: Viewer, pendingId: string) {
  return ctx.db
    .selectFrom('task_session_messages')
    .selectAll()
    .select(rowVisibleTo(ctx, viewer).as('visible'))
    .select((eb) =>
      eb
        .selectFrom('task_sessions as profiled')
        .select('profiled.agent_profile')
        .whereRef('profiled.id', '=', 'task_session_messages.task_session_id')
        .as('agent_profile'),
    )
    .where(ctx.dialect.pendingId(), '=', pendingId)
    .orderBy('created_at')
    .orderBy('id');
}

/**
 * The identity read of a response in one statement: the bundle's rows through
 * the ordered pending-ID index (the same seek and order as
 * `messagesByPendingIdQuery`), each with whether `principal` may see its
 * session and that session's agent profile. Exported so plan tests explain
 * the real text.
 */
export function bundleForPrincipalQuery(ctx: RepoContext, principal: Principal, pendingId: string) {
  return bundleQuery(ctx, viewerOf(principal), pendingId);
}

/**
 * A bundle's rows and their visibility to `principal`, in one read; given
 * `ownerTerms` (several replicas), the same read judges `deliveryOwners` for
 * the bundle's session and asking replica.
 */
export async function bundleForPrincipal(
  ctx: RepoContext,
  principal: Principal,
  pendingId: string,
  ownerTerms?: OwnerTerms,
): Promise<PrincipalBundle> {
  if (ownerTerms) {
    const { now, heartbeatAfter } = ownerTerms;
    const rows =
      principal.kind === 'agent'
        ? await agentOwnedStatement(ctx, '', principal.sessionId, pendingId, now, heartbeatAfter)
        : await userOwnedStatement(ctx, '', principal.userId, pendingId, now, heartbeatAfter);
    const read = principalBundle(rows.map(({ holder: _h, asked_on_live: _l, ...row }) => row));
    return rows[0] ? { ...read, owners: readOwners(rows[0]) } : read;
  }
  const rows =
    principal.kind === 'agent'
      ? await agentBundleStatement(ctx, '', principal.sessionId, pendingId)
      : await userBundleStatement(ctx, '', principal.userId, pendingId);
  return principalBundle(rows);
}

type BundleRow = Awaited<ReturnType<typeof agentBundleStatement>>[number];

function principalBundle(rows: readonly BundleRow[]): PrincipalBundle {
  const first = rows[0];
  // SQLite answers a truth value as 1 or 0, PostgreSQL as a boolean.
  const visible = first !== undefined && Number(first.visible) === 1;
  return {
    rows: rows.map(({ visible: _visible, agent_profile: _profile, ...row }) =>
      toMessageRecord(row),
    ),
    visible,
    agentProfile: first?.agent_profile ?? undefined,
  };
}

function ownedBundleQuery(ctx: RepoContext, viewer: Viewer, pendingId: string, terms: OwnerTerms) {
  const owners = deliveryOwnerColumns(ctx, terms);
  return bundleQuery(ctx, viewer, pendingId)
    .select(owners.holder.as('holder'))
    .select(owners.asked_on_live.as('asked_on_live'));
}

const agentOwnedStatement = compiledStatement(
  'bundle for agent, with owners',
  (ctx: RepoContext, sessionId: string, pendingId: string, now: string, heartbeatAfter: string) =>
    ownedBundleQuery(ctx, { kind: 'agent', sessionId }, pendingId, { now, heartbeatAfter }),
);

const userOwnedStatement = compiledStatement(
  'bundle for user, with owners',
  (ctx: RepoContext, userId: string, pendingId: string, now: string, heartbeatAfter: string) =>
    ownedBundleQuery(ctx, { kind: 'user', userId }, pendingId, { now, heartbeatAfter }),
);

const agentBundleStatement = compiledStatement(
  'bundle for agent',
  (ctx: RepoContext, sessionId: string, pendingId: string) =>
    bundleQuery(ctx, { kind: 'agent', sessionId }, pendingId),
);

const userBundleStatement = compiledStatement(
  'bundle for user',
  (ctx: RepoContext, userId: string, pendingId: string) =>
    bundleQuery(ctx, { kind: 'user', userId }, pendingId),
);

/** Whether `principal` may see the task; agents see only their own session's task. */
export async function canSeeTask(
  ctx: RepoContext,
  principal: Principal,
  taskId: string,
): Promise<boolean> {
  if (principal.kind === 'agent') {
    const row = await ctx.db
      .selectFrom('task_sessions')
      .select('id')
      .where('id', '=', principal.sessionId)
      .where('task_id', '=', taskId)
      .executeTakeFirst();
    return row !== undefined;
  }
  const row = await ctx.db
    .selectFrom('tasks as t')
    .innerJoin('workspace_members as wm', 'wm.workspace_id', 't.workspace_id')
    .select('t.id')
    .where('t.id', '=', taskId)
    .where('wm.user_id', '=', principal.userId)
    .executeTakeFirst();
  return row !== undefined;
}

/** Whether a person belongs to the workspace; an agent belongs to none. */
export async function canSeeWorkspace(
  ctx: RepoContext,
  principal: Principal,
  workspaceId: string,
): Promise<boolean> {
  if (principal.kind === 'agent') return false;
  const row = await ctx.db
    .selectFrom('workspace_members')
    .select('workspace_id')
    .where('workspace_id', '=', workspaceId)
    .where('user_id', '=', principal.userId)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Where a person stands among workspaces: in one at least, in none, or
 * deleted. An agent is judged by its session, never here: `member`.
 */
export async function workspaceStanding(
  ctx: RepoContext,
  principal: Principal,
): Promise<'member' | 'no_workspace' | 'gone'> {
  if (principal.kind === 'agent') return 'member';
  const row = await ctx.db
    .selectFrom('users as u')
    .leftJoin('workspace_members as wm', 'wm.user_id', 'u.id')
    .select('wm.workspace_id')
    .where('u.id', '=', principal.userId)
    .limit(1)
    .executeTakeFirst();
  if (row === undefined) return 'gone';
  return row.workspace_id === null ? 'no_workspace' : 'member';
}

/** IDs of the workspaces a user belongs to. */
export async function memberWorkspaceIds(ctx: RepoContext, userId: string): Promise<string[]> {
  const rows = await ctx.db
    .selectFrom('workspace_members')
    .select('workspace_id')
    .where('user_id', '=', userId)
    .execute();
  return rows.map((row) => row.workspace_id);
}
