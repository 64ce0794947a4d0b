/**
 * `useMemberNames(workspaceId, authorIds)`: user ID → name for a workspace's
 * members, read when the workspace is shown and again when a row's author
 * is one the last read did not name (a member who joined since), once per
 * such author. `reading` says a read that may name an author is under way,
 * so rows wait for it instead of saying "Someone" (`message-author.ts`). A
 * failed read settles like an empty one: rows fall back to naming nobody.
 */
import { useEffect, useState } from 'react';
import { authorsToRead, type MemberNames } from '../model/message-author.js';
import { workspaceMembers } from '../model/members-api.js';

interface MemberRead {
  readonly of: string;
  readonly names: ReadonlyMap<string, string>;
  /** Every author a read was made for. */
  readonly askedFor: ReadonlySet<string>;
}

const NONE: ReadonlyMap<string, string> = new Map();

export function useMemberNames(
  workspaceId: string | undefined,
  authorIds: readonly string[],
): MemberNames {
  const [read, setRead] = useState<MemberRead>();
  const current = read !== undefined && read.of === workspaceId ? read : undefined;
  const owed = current === undefined ? [...authorIds] : authorsToRead(current, authorIds);
  // One key for the effect: which workspace, whether it was read, and which authors are owed.
  const owedKey = `${current === undefined ? 'unread' : 'read'}\n${owed.sort().join('\n')}`;

  useEffect(() => {
    if (workspaceId === undefined) return;
    const [state = 'unread', ...askedNow] = owedKey.split('\n').filter((line) => line !== '');
    if (state === 'read' && askedNow.length === 0) return;
    let live = true;
    void workspaceMembers(workspaceId).then((result) => {
      if (!live) return;
      setRead((previous) => {
        const same = previous?.of === workspaceId ? previous : undefined;
        const names = result.ok
          ? new Map(result.value.members.map((member) => [member.user_id, member.user_name]))
          : (same?.names ?? NONE);
        return {
          of: workspaceId,
          names,
          askedFor: new Set([...(same?.askedFor ?? []), ...askedNow]),
        };
      });
    });
    return () => {
      live = false;
    };
  }, [workspaceId, owedKey]);

  return {
    names: current?.names ?? NONE,
    // No workspace yet (its task is still loading) is no read yet either.
    reading: current === undefined || owed.length > 0,
  };
}
