/**
 * Whether the admin a request acts for still stands when it acts. A request's
 * credential is read before the transaction that acts on it begins; another
 * admin may delete the caller in between, and what a deleted admin does
 * after all (delete the last other admin, invite a new one, mint a link to
 * sign in as someone) must not stand.
 */
import { lockUsers, type RepoContext, type UserRecord } from '../store/index.js';
import { failure, type Failure } from '../wire/index.js';
import type { Principal } from './principal.js';

type UserPrincipal = Extract<Principal, { kind: 'user' }>;

/**
 * The rows of the caller and of `others` when the caller is still an admin,
 * read in the transaction that acts. They stay locked until it ends, taken
 * in one order (`lockUsers`), so a deletion of the caller either committed
 * first and is seen here or waits for this transaction.
 */
export async function adminStands(
  tx: RepoContext,
  caller: UserPrincipal,
  others: readonly string[],
  exclusive: boolean,
): Promise<UserRecord[] | undefined> {
  const rows = await lockUsers(tx, [caller.userId, ...others], exclusive);
  const standing = rows.some((row) => row.id === caller.userId && row.is_admin === 1);
  return standing ? rows : undefined;
}

export function callerGone(): Failure<'unauthorized'> {
  return failure('unauthorized', 'your account no longer exists or is no longer an admin');
}
