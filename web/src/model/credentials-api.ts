/**
 * REST calls for credentials a person mints for themselves (issue 14):
 * one-time sign-in links and personal API tokens. Kept apart from
 * `ApiClient` so the Settings sections own their data; results are typed,
 * failures are values, never exceptions.
 */
import type {
  NewTokenReply,
  PersonalTokenKind,
  SignInLinkReply,
  SignOutOthersReply,
  TokenListReply,
} from '../../../src/wire/index.js';
import { request, type ApiResult, type FetchLike } from './api.js';
import { pageFetch } from './page-fetch.js';

export function mintSignInLink(
  fetchImpl: FetchLike = pageFetch,
): Promise<ApiResult<SignInLinkReply>> {
  return request(fetchImpl, '/api/v1/auth/sign-in-links', { method: 'POST', body: '{}' });
}

export function listTokens(fetchImpl: FetchLike = pageFetch): Promise<ApiResult<TokenListReply>> {
  return request(fetchImpl, '/api/v1/tokens');
}

/** `kind: 'agent'` for an agent the person runs: it asks and waits through MCP, never decides. */
export function createToken(
  token: { name: string; kind?: PersonalTokenKind },
  fetchImpl: FetchLike = pageFetch,
): Promise<ApiResult<NewTokenReply>> {
  return request(fetchImpl, '/api/v1/tokens', { method: 'POST', body: JSON.stringify(token) });
}

export function revokeToken(
  id: string,
  fetchImpl: FetchLike = pageFetch,
): Promise<ApiResult<null>> {
  return request(fetchImpl, `/api/v1/tokens/${encodeURIComponent(id)}`, { method: 'DELETE' });
}

/** The one line that adds Clarion to Claude Code, as the README gives it. */
export function claudeMcpCommand(origin: string, secret: string): string {
  return `claude mcp add --transport http clarion ${origin}/mcp --header "Authorization: Bearer ${secret}"`;
}

/** Ends the person's other browser sessions, keeping this one; how many ended. */
export function signOutOtherDevices(
  fetchImpl: FetchLike = pageFetch,
): Promise<ApiResult<SignOutOthersReply>> {
  return request(fetchImpl, '/api/v1/auth/sign-out-others', { method: 'POST', body: '{}' });
}
