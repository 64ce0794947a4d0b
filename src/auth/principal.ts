import type { DecisionSurface, Responder } from '../wire/index.js';

/**
 * Who is calling. A user reaches the tasks of the workspaces they belong to;
 * an agent token reaches only the one session it was minted for (DESIGN §8).
 */
export type Principal =
  | {
      readonly kind: 'user';
      readonly userId: string;
      /** The account's name when the credential was checked; what a decision records. */
      readonly name: string;
      readonly isAdmin: boolean;
    }
  | { readonly kind: 'agent'; readonly userId: string; readonly sessionId: string };

/**
 * The holder of an external agent's token: an agent a person runs themselves
 * (an MCP client such as Claude Code). It is no principal yet: `/mcp` binds
 * each of its MCP sessions to its client's external session, as an `agent`
 * of that session; every other surface refuses it. No agent ever decides.
 */
export interface ExternalAgent {
  readonly kind: 'external_agent';
  readonly userId: string;
}

/** What a bearer token resolves to. */
export type TokenHolder = Principal | ExternalAgent;

export type { DecisionSurface, Responder };

/**
 * Only a person decides (DESIGN §6): the responder a decision records for
 * `principal` on `surface`, or `undefined` for an agent, which may ask and
 * wait but never answer, approve or cancel.
 */
export function responderOf(principal: Principal, surface: DecisionSurface): Responder | undefined {
  if (principal.kind === 'agent') return undefined;
  return { user_id: principal.userId, name: principal.name, surface };
}
