/**
 * What an ask counts against `OPEN_ASKS_PER_AGENT`. An agent Clarion started
 * is its session, so its session's open bundles are its own. An external
 * agent is named by its MCP client (`clientInfo.name`), which the client
 * chooses freely: counted per session, a client that renamed itself would
 * get a fresh allowance with each name. So an external agent's bound is its
 * person's: the open bundles of all their live external sessions, whatever
 * token or name asked them. Per token would not hold either, since a person
 * may mint as many agent tokens as they like, and a user token asks in the
 * same sessions.
 */
import { EXTERNAL_AGENT_PROFILE } from '../agents/index.js';
import {
  getTask,
  liveExternalSessionsOf,
  lockExternalAgents,
  openBundleCount,
  type RepoContext,
  type SessionRecord,
} from '../store/index.js';
import { failure, type Failure } from '../wire/index.js';

/** Whose open bundles an ask in a session counts: the session's, or a person's external sessions'. */
export type AskScope = { kind: 'session'; sessionId: string } | { kind: 'person'; userId: string };

/** The scope of an ask in `session`: an external session's is its task's creator. */
export async function askScopeOf(ctx: RepoContext, session: SessionRecord): Promise<AskScope> {
  if (session.agent_profile === EXTERNAL_AGENT_PROFILE) {
    const owner = (await getTask(ctx, session.task_id))?.created_by;
    if (owner) return { kind: 'person', userId: owner };
  }
  return { kind: 'session', sessionId: session.id };
}

/**
 * The open bundles `scope` holds, read in the ask's transaction. A person's
 * are counted under their lock, so asks racing from two of their sessions
 * (each under its own session's lock) are counted one after the other. The
 * sessions are few (`EXTERNAL_SESSIONS_PER_PERSON`), and each count seeks
 * the pending-rows index of that session's current turn.
 */
export async function openAsksIn(ctx: RepoContext, scope: AskScope): Promise<number> {
  if (scope.kind === 'session') return openBundleCount(ctx, scope.sessionId);
  await lockExternalAgents(ctx, scope.userId);
  let open = 0;
  for (const sessionId of await liveExternalSessionsOf(ctx, scope.userId)) {
    open += await openBundleCount(ctx, sessionId);
  }
  return open;
}

/** The refusal of an ask over the bound: how many are open, and what frees a place. */
export function tooManyOpenAsks(
  scope: AskScope,
  open: number,
  limit: number,
): Failure<'too_many_open_requests'> {
  const held =
    scope.kind === 'session'
      ? `${open} of your questions are open, and an agent may hold at most ${limit} open at once`
      : `${open} questions of your external agents are open (every MCP client name counts), ` +
        `and together they may hold at most ${limit} open at once`;
  return failure(
    'too_many_open_requests',
    `${held}; nothing was asked. A person must answer, skip or cancel one of them before you ask again.`,
    { open, limit },
  );
}
