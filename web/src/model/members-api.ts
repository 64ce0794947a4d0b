/** The members of a workspace, which any member may list: how transcripts name their authors. */
import type { MemberView } from '../../../src/wire/index.js';
import { request, type ApiResult, type FetchLike } from './api.js';

const browserFetch: FetchLike = (input, init) => fetch(input, init);

/** As `memberListReply` on the wire. */
export type WorkspaceMember = MemberView & { user_name: string };

export function workspaceMembers(
  workspaceId: string,
  fetchImpl: FetchLike = browserFetch,
): Promise<ApiResult<{ members: WorkspaceMember[] }>> {
  return request(fetchImpl, `/api/v1/workspaces/${encodeURIComponent(workspaceId)}/members`);
}
