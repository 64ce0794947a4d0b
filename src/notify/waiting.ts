/**
 * What still waits on a person, as notifications read it: a question bundle
 * pending in its session's current turn (the store), or a consent, action or
 * form request awaiting a person (the registry's memory; with several
 * servers, the other replicas' too). The reconcile pass reads it to plan,
 * and each attempt at an `asked` or `reminder` reads it again for its one
 * item (`recheck.ts`), so a notice planned from a reading an answer has
 * since overtaken is not sent.
 */
import { activePendingIds, type RepoContext } from '../store/index.js';
import type { UserInputView } from '../wire/index.js';
import type { Notice } from './channel.js';

/** The registry as notifications see it: its live requests (with several servers, theirs too). */
export interface WaitingRequests {
  snapshot(): readonly UserInputView[] | Promise<readonly UserInputView[]>;
}

/** The requests still waiting for a person: an answered action's follow-up is the agent's. */
export async function awaitingRequests(requests: WaitingRequests): Promise<UserInputView[]> {
  return (await requests.snapshot()).filter((request) => request.status === 'awaiting');
}

/** Whether the notice's item still waits on a person, whoever may see it. */
export async function itemStillWaits(
  store: RepoContext,
  requests: WaitingRequests,
  item: Pick<Notice, 'kind' | 'itemId'>,
): Promise<boolean> {
  if (item.kind === 'question') {
    return (await activePendingIds(store, [item.itemId])).has(item.itemId);
  }
  return (await awaitingRequests(requests)).some((request) => request.id === item.itemId);
}
