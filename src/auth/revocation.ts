/**
 * Ending credentials whose holder is gone. An agent token is good only while
 * the agent process it was minted for runs: it is revoked when that process
 * exits (stopped, crashed, or never started), when the server shuts down, and
 * at start-up for any an earlier run left behind. Deleting the row is the
 * revocation: a token is only ever checked against its stored hash.
 */
import {
  deleteAgentTokensIn,
  deleteSessionTokens,
  deleteTokenById,
  deleteTokensOfKind,
  type RepoContext,
  type SessionScope,
} from '../store/index.js';

/** Revokes the agent tokens of one session; how many there were. */
export function revokeAgentTokens(ctx: RepoContext, sessionId: string): Promise<number> {
  return deleteSessionTokens(ctx, sessionId);
}

/**
 * Revokes every agent token. Only for when no agent of this server runs: at
 * start-up, and once the host has stopped them all at shutdown.
 */
export function revokeAllAgentTokens(ctx: RepoContext): Promise<number> {
  return deleteTokensOfKind(ctx, 'agent');
}

/**
 * Revokes the agent tokens of the sessions in `scope`: with several replicas
 * on one database, a start or stop ends only the tokens of agents no live
 * replica runs, or of its own.
 */
export function revokeAgentTokensIn(ctx: RepoContext, scope: SessionScope): Promise<number> {
  return deleteAgentTokensIn(ctx, scope);
}

/** Revokes one issued token by its record ID, such as one minted for an agent that never started. */
export function revokeIssuedToken(ctx: RepoContext, tokenId: string): Promise<boolean> {
  return deleteTokenById(ctx, tokenId);
}
