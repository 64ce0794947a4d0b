/**
 * `useMemberNames(workspaceId, authorIds)`: user ID → name for a workspace's
 * members, from the app's one `NamesDirectory`: read when the workspace is
 * shown, again when a row's author is one no read named or was made for (a
 * member who joined since), and whenever the person's access changes.
 * `reading` says a read that may name an author is under way, so rows wait
 * for it instead of saying "Someone" (`message-author.ts`). A failed read
 * settles like an empty one: rows fall back to naming nobody.
 */
import { useEffect } from 'react';
import { useNames, useServices } from '../app/services.js';
import { authorsToRead, type MemberNames } from '../model/message-author.js';

const NONE: ReadonlyMap<string, string> = new Map();

export function useMemberNames(
  workspaceId: string | undefined,
  authorIds: readonly string[],
): MemberNames {
  const { names } = useServices();
  const list = useNames().members.get(workspaceId ?? '');
  // One key for the effect: the authors, whatever their order and repeats.
  const authorsKey = [...new Set(authorIds)].sort().join('\n');

  useEffect(() => {
    if (workspaceId === undefined) return;
    names.wantMembers(workspaceId, authorsKey === '' ? [] : authorsKey.split('\n'));
  }, [names, workspaceId, authorsKey]);

  return {
    names: list?.names ?? NONE,
    // No workspace yet (its task is still loading) is no read yet either.
    reading:
      workspaceId === undefined ||
      list === undefined ||
      list.reading ||
      authorsToRead(list, authorIds).length > 0,
  };
}
