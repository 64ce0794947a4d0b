/**
 * `useMe()`: the signed-in person's user ID, from the account the shell's
 * sign-in check filled in (`GET /api/v1/me`, read once per page). Used only
 * to tell "you" from "someone else": a decision made elsewhere, a
 * transcript's message. While it is not known every responder and sender
 * counts as someone else, which is the cautious label.
 */
import { useAccount } from '../app/services.js';

export function useMe(): string | undefined {
  const account = useAccount();
  return account.status === 'signed_in' ? account.me.user.id : undefined;
}
