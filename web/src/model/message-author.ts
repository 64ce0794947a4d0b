/**
 * Who wrote a person's transcript row, as the reader sees it: "You" only for
 * the reader's own messages (the row's `metadata.user_id`), another member
 * by name. A row names nobody ("Someone") only once that is settled: the
 * reader is known and a read of the members made after the row's author
 * appeared does not name them (they left). Until then it is `unknown_yet`,
 * shown as a placeholder that claims no one, so a name that arrives a moment
 * later never flashes "Someone" (or the reader's own name) first. Pure.
 */
export type UserAuthor =
  { kind: 'you' } | { kind: 'named'; name: string } | { kind: 'someone' } | { kind: 'unknown_yet' };

/** The workspace's member names as last read, and whether a read that may add an author is under way. */
export interface MemberNames {
  readonly names: ReadonlyMap<string, string>;
  readonly reading: boolean;
}

export function userAuthorOf(
  metadata: Readonly<Record<string, unknown>>,
  me: string | undefined,
  members: MemberNames,
): UserAuthor {
  const userId = metadata.user_id;
  if (typeof userId !== 'string') return { kind: 'someone' };
  // The reader may be this row's author: "You", not their name nor "Someone".
  if (me === undefined) return { kind: 'unknown_yet' };
  if (userId === me) return { kind: 'you' };
  const name = members.names.get(userId);
  if (name !== undefined) return { kind: 'named', name };
  return members.reading ? { kind: 'unknown_yet' } : { kind: 'someone' };
}

/** The distinct user IDs of the person-written rows in `rows`, in order. */
export function authorIdsOf(
  rows: readonly { author: string; metadata: Readonly<Record<string, unknown>> }[],
): string[] {
  const ids = new Set<string>();
  for (const row of rows) {
    const userId = row.metadata.user_id;
    if (row.author === 'user' && typeof userId === 'string') ids.add(userId);
  }
  return [...ids];
}

/**
 * Of `authorIds`, those a new read of the members is owed for: every one
 * before the first read; after it, those the read does not name and no read
 * was made for yet (a member who joined since). An author a read was made
 * for and did not name is settled: no read again.
 */
export function authorsToRead(
  read: { readonly names: ReadonlyMap<string, string>; readonly askedFor: ReadonlySet<string> },
  authorIds: readonly string[],
): string[] {
  return authorIds.filter((id) => !read.names.has(id) && !read.askedFor.has(id));
}
