/**
 * REST calls for the People page: users (admins only), the workspaces the
 * person belongs to, and a sign-in link an admin makes for someone else.
 * Membership changes sit with the member list in `members-api.ts`. Results
 * are typed; failures are values, never exceptions.
 */
import type { SignInLinkReply, UserView, WorkspaceView } from '../../../src/wire/index.js';
import { request, type ApiResult, type FetchLike } from './api.js';
import { pageFetch } from './page-fetch.js';

/** As `newUserReply` on the wire; the bearer token in it is not shown by the web app. */
export interface InvitedUser {
  user: UserView;
  sign_in_url: string;
  sign_in_expires_at: string;
}

export function listUsers(
  fetchImpl: FetchLike = pageFetch,
): Promise<ApiResult<{ users: UserView[] }>> {
  return request(fetchImpl, '/api/v1/users');
}

export function inviteUser(
  user: { name: string; is_admin?: boolean },
  fetchImpl: FetchLike = pageFetch,
): Promise<ApiResult<InvitedUser>> {
  return request(fetchImpl, '/api/v1/users', { method: 'POST', body: JSON.stringify(user) });
}

/** Revokes every token the user holds; the live sessions of tasks they created fail. */
export function deleteUser(
  userId: string,
  fetchImpl: FetchLike = pageFetch,
): Promise<ApiResult<null>> {
  return request(fetchImpl, `/api/v1/users/${encodeURIComponent(userId)}`, { method: 'DELETE' });
}

/** A new one-time link for another user (admin); their other links stay valid. */
export function signInLinkFor(
  userId: string,
  fetchImpl: FetchLike = pageFetch,
): Promise<ApiResult<SignInLinkReply>> {
  return request(fetchImpl, '/api/v1/auth/sign-in-links', {
    method: 'POST',
    body: JSON.stringify({ user_id: userId }),
  });
}

/** As `workspaceListReply` with `scope=all`: every workspace, and whether the admin is in it. */
export type ListedWorkspace = WorkspaceView & { member?: boolean };

/**
 * Every workspace (admins only): an admin manages workspaces they are not a
 * member of, which the app's own list (the person's workspaces) leaves out.
 */
export function listAllWorkspaces(
  fetchImpl: FetchLike = pageFetch,
): Promise<ApiResult<{ workspaces: ListedWorkspace[] }>> {
  return request(fetchImpl, '/api/v1/workspaces?scope=all');
}

/** A new name, with the same rules as a new workspace's (admin, or an owner of it). */
export function renameWorkspace(
  workspaceId: string,
  name: string,
  fetchImpl: FetchLike = pageFetch,
): Promise<ApiResult<{ workspace: WorkspaceView }>> {
  return request(fetchImpl, `/api/v1/workspaces/${encodeURIComponent(workspaceId)}`, {
    method: 'PATCH',
    body: JSON.stringify({ name }),
  });
}
