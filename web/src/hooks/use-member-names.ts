/**
 * `useMemberNames(workspaceId)`: user ID → name for a workspace's members,
 * read once per workspace shown; empty until read or when it cannot be, so
 * rows fall back to naming nobody (`message-author.ts`).
 */
import { useEffect, useState } from 'react';
import { workspaceMembers } from '../model/members-api.js';

const NONE: ReadonlyMap<string, string> = new Map();

export function useMemberNames(workspaceId: string | undefined): ReadonlyMap<string, string> {
  const [names, setNames] = useState<{ of: string; names: ReadonlyMap<string, string> }>();
  useEffect(() => {
    if (workspaceId === undefined) return;
    let current = true;
    void workspaceMembers(workspaceId).then((result) => {
      if (!current || !result.ok) return;
      setNames({
        of: workspaceId,
        names: new Map(result.value.members.map((member) => [member.user_id, member.user_name])),
      });
    });
    return () => {
      current = false;
    };
  }, [workspaceId]);
  return names !== undefined && names.of === workspaceId ? names.names : NONE;
}
