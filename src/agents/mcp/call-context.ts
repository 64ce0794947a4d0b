/**
 * Who is calling a tool and when the call is over. The HTTP route
 * authenticates every request and hands the token's holder and the request's own
 * abort signal to the transport as `authInfo.extra`; a tool reads them back
 * here. A call ends when the client cancels it (MCP `notifications/cancelled`
 * aborts `extra.signal`) or when the HTTP connection carrying it closes.
 */
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Principal, TokenHolder } from '../../auth/index.js';
import type { CredentialLease } from '../../auth/index.js';

export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export interface CallContext {
  /** An external agent is bound to its client's external session by the tools (`tools.ts`). */
  holder: TokenHolder;
  /** The bearer secret the request authenticated with, for a call that outlives that check. */
  token: string;
  /** Aborts when the MCP request is cancelled or its HTTP connection closes. */
  signal: AbortSignal;
  /**
   * Aborts only when the client ends the call: it cancels it, or closes its
   * MCP session. A closed connection says less: a killed agent's closes too.
   */
  withdrawn: AbortSignal;
  /** Aborts when the HTTP connection carrying the call closes. */
  connection: AbortSignal;
  /** How long the route waited for the request's credential lookup (a respond's budget counts it). */
  credentialLookupMs: number;
}

/** A running call: its signal also aborts once its token is found revoked (`credential`). */
export interface RunningCall extends CallContext {
  credential: CredentialLease;
}

/** A call whose caller is bound to a principal (an external agent: to its external session). */
export interface BoundCall extends RunningCall {
  principal: Principal;
}

const PRINCIPAL_KEY = 'clarionPrincipal';
const CONNECTION_KEY = 'clarionConnection';
const LOOKUP_KEY = 'clarionCredentialLookupMs';

/** What the route attaches to every request it hands the transport. */
export function callerAuthInfo(
  holder: TokenHolder,
  token: string,
  connection: AbortSignal,
  credentialLookupMs: number,
): AuthInfo {
  return {
    token,
    clientId: holderKey(holder),
    scopes: [],
    extra: {
      [PRINCIPAL_KEY]: holder,
      [CONNECTION_KEY]: connection,
      [LOOKUP_KEY]: credentialLookupMs,
    },
  };
}

/** The caller of a tool; `undefined` when the route did not authenticate it (never served). */
export function callContext(extra: ToolExtra): CallContext | undefined {
  const attached = extra.authInfo?.extra;
  const holder = attached?.[PRINCIPAL_KEY] as TokenHolder | undefined;
  const connection = attached?.[CONNECTION_KEY];
  const lookupMs = attached?.[LOOKUP_KEY];
  const token = extra.authInfo?.token;
  if (!holder || token === undefined) return undefined;
  // Only a call the route did not carry (never served) lacks one: nothing then closes it.
  const carrier = connection instanceof AbortSignal ? connection : new AbortController().signal;
  return {
    holder,
    token,
    signal: AbortSignal.any([extra.signal, carrier]),
    withdrawn: extra.signal,
    connection: carrier,
    credentialLookupMs: typeof lookupMs === 'number' ? lookupMs : 0,
  };
}

/** Stable identity of a token's holder, to bind an MCP session to whoever opened it. */
export function holderKey(holder: TokenHolder): string {
  switch (holder.kind) {
    case 'agent':
      return `agent:${holder.userId}:${holder.sessionId}`;
    case 'external_agent':
      return `external-agent:${holder.userId}`;
    case 'user':
      return `user:${holder.userId}`;
  }
}
