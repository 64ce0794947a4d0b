/**
 * Who wrote a person's transcript row, as the reader sees it: "You" only for
 * the reader's own messages (the row's `metadata.user_id`), another member
 * by name. Until the reader is known, or for someone no longer a member, the
 * row names nobody rather than claim it was the reader.
 */
export type UserAuthor = { kind: 'you' } | { kind: 'named'; name: string } | { kind: 'someone' };

export function userAuthorOf(
  metadata: Readonly<Record<string, unknown>>,
  me: string | undefined,
  names: ReadonlyMap<string, string>,
): UserAuthor {
  const userId = metadata.user_id;
  if (typeof userId !== 'string') return { kind: 'someone' };
  if (me !== undefined && userId === me) return { kind: 'you' };
  const name = names.get(userId);
  return name === undefined ? { kind: 'someone' } : { kind: 'named', name };
}
