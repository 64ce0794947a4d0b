/**
 * Where an external agent's questions land. An agent that Clarion did not
 * spawn (someone's own Claude Code with a user token) has no session of its
 * own, so it gets one: an `external` session of a task named after the MCP
 * client, in the user's first workspace. The same user and client name reuse
 * it while it has not ended, so one client's questions stay together. Only an
 * ask opens one (`ensureExternalSession`); the client's reads look it up
 * (`findExternalSession`) and change nothing.
 *
 * Finding it is one read of that session (`liveExternalSessionFor`), once
 * per MCP session once it has asked: the caller (`agents/mcp`) caches the
 * result and only re-checks that the session is still live. A new session
 * is rows nobody can have subscribed to yet, written as a task's are.
 */
import { EXTERNAL_AGENT_PROFILE } from '../agents/index.js';
import {
  canSeeSession,
  createSession,
  createTask,
  getSession,
  listMemberWorkspaces,
  liveExternalSessionFor,
  liveExternalSessionsOf,
  lockExternalAgents,
  messagesByPendingId,
  getTask,
  setSessionState,
  startTurn,
  TERMINAL_SESSION_STATES,
  type ExternalSessionRef,
  type RepoContext,
  type SessionState,
  type Store,
} from '../store/index.js';
import { EXTERNAL_SESSIONS_PER_PERSON } from '../tunables.js';
import { failure, type Failure } from '../wire/index.js';

const TERMINAL = new Set<SessionState>(TERMINAL_SESSION_STATES);

export type ExternalSessionResult =
  | { ok: true; sessionId: string; taskId: string; created: boolean }
  | Failure<'no_workspace' | 'too_many_external_sessions' | 'too_many_open_requests'>;

/**
 * What must hold before a new session opens, read in the transaction that
 * would open it (the caller's own bound on its first ask): a refusal opens
 * nothing.
 */
export type ExternalSessionAdmission = (
  tx: RepoContext,
) => Promise<Failure<'too_many_open_requests'> | undefined>;

/**
 * Whether a session found earlier can still take `userId`'s questions: it
 * has not ended, and they still belong to its task's workspace. A person
 * removed from it since must not go on being asked for there, where its
 * people would hear and answer for an agent no longer one of theirs.
 */
export async function externalSessionLive(
  ctx: RepoContext,
  sessionId: string,
  userId: string,
): Promise<boolean> {
  const session = await getSession(ctx, sessionId);
  if (session === undefined || TERMINAL.has(session.state)) return false;
  // Only the person's membership is read.
  return canSeeSession(ctx, { kind: 'user', userId, name: '', isAdmin: false }, sessionId);
}

/** An external session found without opening one: `sessionId` is absent when there is none. */
export type ExternalSessionLookup =
  { ok: true; sessionId?: string } | { ok: false; code: 'no_workspace' };

/**
 * The user's live external session for `title`, if there is one; opens
 * nothing, so a read or a refused call of a client that has asked nothing
 * yet does not make it a task.
 */
export async function findExternalSession(
  ctx: RepoContext,
  userId: string,
  title: string,
): Promise<ExternalSessionLookup> {
  const found = await lookUp(ctx, userId, title);
  if (!found.homeId) return { ok: false, code: 'no_workspace' };
  return found.live ? { ok: true, sessionId: found.live.sessionId } : { ok: true };
}

/**
 * The user's live external session for `title`, created when there is none
 * and `admit` lets it. A person's external agents may have at most
 * `EXTERNAL_SESSIONS_PER_PERSON` live sessions: each client name opens one,
 * and the name is the client's to choose, so without a bound a client that
 * renamed itself would make a task per ask. Ended and deleted sessions do
 * not count; the person frees a place by deleting one of those tasks.
 */
export async function ensureExternalSession(
  store: Store,
  userId: string,
  title: string,
  admit?: ExternalSessionAdmission,
): Promise<ExternalSessionResult> {
  return store.transaction(async (tx) => {
    // Two first questions of one client at once must not open two sessions,
    // nor two new names both take the last place; PostgreSQL serializes on
    // the person's lock, SQLite has a single writer anyway.
    await lockExternalAgents(tx, userId);
    const { homeId, live } = await lookUp(tx, userId, title);
    if (!homeId) return failure('no_workspace');
    if (live) return { ok: true, ...live, created: false } as const;
    const sessions = (await liveExternalSessionsOf(tx, userId)).length;
    if (sessions >= EXTERNAL_SESSIONS_PER_PERSON) return tooManySessions(sessions);
    const refused = await admit?.(tx);
    if (refused) return refused;
    const task = await createTask(tx, { workspaceId: homeId, title, createdBy: userId });
    const session = await createSession(tx, {
      taskId: task.id,
      agentProfile: EXTERNAL_AGENT_PROFILE,
    });
    await startTurn(tx, { sessionId: session.id, taskId: task.id });
    await setSessionState(tx, session.id, 'running');
    return { ok: true, sessionId: session.id, taskId: task.id, created: true } as const;
  });
}

function tooManySessions(live: number): Failure<'too_many_external_sessions'> {
  const limit = EXTERNAL_SESSIONS_PER_PERSON;
  return failure(
    'too_many_external_sessions',
    `your external agents have ${live} sessions, one per MCP client name, and may have at most ` +
      `${limit}; nothing was asked. Ask under a client name that already has a session, or have ` +
      'the person delete one of those tasks in Clarion.',
    { live, limit },
  );
}

/**
 * The client name (its task's title) of `userId`'s own external session that
 * asked `pendingId`; undefined when none of theirs did. It lets another
 * client of the same person hear whose question it is, and tells nobody
 * anything about another person's question.
 */
export async function externalAskerOf(
  ctx: RepoContext,
  userId: string,
  pendingId: string,
): Promise<string | undefined> {
  const [row] = await messagesByPendingId(ctx, pendingId);
  if (!row) return undefined;
  const session = await getSession(ctx, row.task_session_id);
  if (session?.agent_profile !== EXTERNAL_AGENT_PROFILE) return undefined;
  const task = await getTask(ctx, session.task_id);
  return task?.created_by === userId ? task.title : undefined;
}

/** The user's first workspace (where a new session goes) and their live session for `title`. */
async function lookUp(
  ctx: RepoContext,
  userId: string,
  title: string,
): Promise<{ homeId?: string; live?: ExternalSessionRef }> {
  const [home] = await listMemberWorkspaces(ctx, userId);
  if (!home) return {};
  const live = await liveExternalSessionFor(ctx, userId, title);
  return live ? { homeId: home.id, live } : { homeId: home.id };
}
