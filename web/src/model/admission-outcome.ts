/**
 * What a message's admission reply means for the person who sent it
 * (`useMessageHandler`). A repeat of an admission key returns what the server
 * holds under it, which is not what was just sent when the first send went
 * through unconfirmed and the person edited the text before sending again:
 * that is told, never passed off as the edit. Only a failure that may have
 * reached the server (network, 5xx) is "not confirmed"; a 4xx says it did not.
 */
import type { AdmissionOutcome, ApiResult } from './api.js';
import { fieldProblems } from './tasks-api.js';

export type MessageOutcome =
  | {
      outcome: 'sent' | 'queued';
      /**
       * The text the server holds under the key, when it is not the text just
       * sent: an earlier send with that key went through, and this text did not.
       */
      earlier?: string;
      /** The queue item a queued message became, while it waits there. */
      queuedId?: string;
    }
  | { outcome: 'failed'; reason: 'refused' | 'uncertain' | 'not_found' }
  /**
   * A late answer whose key already carried an earlier version of it (its
   * first send went through unconfirmed, and the person edited it since):
   * that one went, this one did not, and a send again goes with a new key.
   */
  | { outcome: 'failed'; reason: 'earlier_sent' }
  /** The server refused the text itself (400 and the like): sending it again will not help. */
  | { outcome: 'failed'; reason: 'invalid'; problem: string };

export type FailureReason = Extract<MessageOutcome, { outcome: 'failed' }>['reason'];

export function messageOutcomeOf(
  result: ApiResult<AdmissionOutcome>,
  sentText: string,
): MessageOutcome {
  if (result.ok) {
    const admitted = result.value;
    const held = admitted.outcome === 'sent' ? admitted.message.content : admitted.item.text;
    const queuedId = admitted.outcome === 'queued' ? { queuedId: admitted.item.id } : {};
    return held === sentText
      ? { outcome: admitted.outcome, ...queuedId }
      : { outcome: admitted.outcome, earlier: held, ...queuedId };
  }
  if (result.kind === 'network' || result.status >= 500 || result.status === 408) {
    return { outcome: 'failed', reason: 'uncertain' };
  }
  if (result.status === 409) return { outcome: 'failed', reason: 'refused' };
  if (result.status === 404) return { outcome: 'failed', reason: 'not_found' };
  const problems = Object.values(fieldProblems(result));
  return {
    outcome: 'failed',
    reason: 'invalid',
    problem: problems.length > 0 ? problems.join('; ') : result.error,
  };
}
