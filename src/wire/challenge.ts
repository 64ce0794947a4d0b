/**
 * The `WWW-Authenticate` challenge of a 401 on `/mcp` and `/api/v1`, as RFC
 * 6750 §3 words it. A request that sent no credential, or a scheme other
 * than Bearer, learns only that a bearer token is needed: §3.1 says such a
 * challenge SHOULD NOT carry an error code. A request that sent a bearer
 * token learns that this token is the problem (`invalid_token`: unknown,
 * malformed, expired or revoked). Clarion publishes no OAuth metadata, so
 * the challenge names no `resource_metadata`: an MCP client has nothing to
 * discover and can report the token as refused.
 */

export const MISSING_TOKEN_CHALLENGE = 'Bearer';
export const INVALID_TOKEN_CHALLENGE = 'Bearer error="invalid_token"';

/** The challenge for a refused request, from its `Authorization` header. */
export function bearerChallenge(authorization: string | null | undefined): string {
  const sentBearer =
    authorization !== null &&
    authorization !== undefined &&
    /^Bearer(\s|$)/i.test(authorization.trimStart());
  return sentBearer ? INVALID_TOKEN_CHALLENGE : MISSING_TOKEN_CHALLENGE;
}
