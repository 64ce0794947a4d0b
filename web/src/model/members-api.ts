/**
 * The members of a workspace, which any member may list (how transcripts name
 * their authors), and the changes an admin makes to them.
 */
import type { MemberView } from '../../../src/wire/index.js';
import { request, type ApiResult, type FetchLike } from './api.js';
import { pageFetch } from './page-fetch.js';

/** As `memberListReply` on the wire. */
export type WorkspaceMember = MemberView & { user_name: string };
export type MemberRole = MemberView['role'];

function membersPath(workspaceId: string): string {
  return `/api/v1/workspaces/${encodeURIComponent(workspaceId)}/members`;
}

export function workspaceMembers(
  workspaceId: string,
  fetchImpl: FetchLike = pageFetch,
): Promise<ApiResult<{ members: WorkspaceMember[] }>> {
  return request(fetchImpl, membersPath(workspaceId));
}

/** Adds a member, or changes a member's role: the server answers both on one route. */
export function putMember(
  workspaceId: string,
  member: { user_id: string; role: MemberRole },
  fetchImpl: FetchLike = pageFetch,
): Promise<ApiResult<{ member: MemberView }>> {
  return request(fetchImpl, membersPath(workspaceId), {
    method: 'POST',
    body: JSON.stringify(member),
  });
}

export function removeMember(
  workspaceId: string,
  userId: string,
  fetchImpl: FetchLike = pageFetch,
): Promise<ApiResult<null>> {
  return request(fetchImpl, `${membersPath(workspaceId)}/${encodeURIComponent(userId)}`, {
    method: 'DELETE',
  });
}
