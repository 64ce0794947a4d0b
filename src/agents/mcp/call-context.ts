/**
 * Who is calling a tool and when the call is over. The HTTP route
 * authenticates every request and hands the principal and the request's own
 * abort signal to the transport as `authInfo.extra`; a tool reads them back
 * here. A call ends when the client cancels it (MCP `notifications/cancelled`
 * aborts `extra.signal`) or when the HTTP connection carrying it closes.
 */
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../../auth/index.js';

export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export interface CallContext {
  principal: Principal;
  /** Aborts when the MCP request is cancelled or its HTTP connection closes. */
  signal: AbortSignal;
}

const PRINCIPAL_KEY = 'clarionPrincipal';
const CONNECTION_KEY = 'clarionConnection';

/** What the route attaches to every request it hands the transport. */
export function callerAuthInfo(
  principal: Principal,
  token: string,
  connection: AbortSignal,
): AuthInfo {
  return {
    token,
    clientId:
      principal.kind === 'agent' ? `agent:${principal.sessionId}` : `user:${principal.userId}`,
    scopes: [],
    extra: { [PRINCIPAL_KEY]: principal, [CONNECTION_KEY]: connection },
  };
}

/** The caller of a tool; `undefined` when the route did not authenticate it (never served). */
export function callContext(extra: ToolExtra): CallContext | undefined {
  const attached = extra.authInfo?.extra;
  const principal = attached?.[PRINCIPAL_KEY] as Principal | undefined;
  const connection = attached?.[CONNECTION_KEY];
  if (!principal) return undefined;
  const signal =
    connection instanceof AbortSignal ? AbortSignal.any([extra.signal, connection]) : extra.signal;
  return { principal, signal };
}

/** Stable identity of a principal, to bind an MCP session to whoever opened it. */
export function principalKey(principal: Principal): string {
  return principal.kind === 'agent'
    ? `agent:${principal.userId}:${principal.sessionId}`
    : `user:${principal.userId}`;
}
