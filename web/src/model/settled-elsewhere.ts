/**
 * How a bundle the person was still composing an answer for was settled
 * somewhere else, as far as the transcript rows say: by this person in
 * another tab (the web surface), by this person through another surface, by
 * someone else, cancelled by any of those, or no longer active (expired, or
 * the conversation moved on). Pure, so the labels are tested without a browser.
 */
import { parseResponder } from './responder.js';
import { questionOfRow, type ModelState } from './read-model.js';
import type { Responder } from './types.js';

/** Who decided, relative to the person looking. */
export type ResponderLabel = 'another_tab' | 'you_elsewhere' | 'someone_else';

export type SettledElsewhere = ResponderLabel | `cancelled_${ResponderLabel}` | 'expired';

/** Who decided, relative to `me`: one label for the banner and the winner view alike. */
export function responderLabel(
  responder: Responder | null,
  me: string | undefined,
): ResponderLabel {
  if (!responder || me === undefined || responder.user_id !== me) return 'someone_else';
  return responder.surface === 'web' ? 'another_tab' : 'you_elsewhere';
}

export function settledElsewhere(
  state: ModelState,
  sessionId: string,
  pendingId: string,
  me: string | undefined,
): SettledElsewhere {
  const messages = Object.values(state.sessions[sessionId]?.messages ?? {});
  for (const message of messages) {
    const row = questionOfRow(message);
    if (row?.pendingId !== pendingId) continue;
    switch (row.question.status) {
      case 'answered':
      case 'rejected':
        return responderLabel(parseResponder(message.metadata.responded_by), me);
      case 'cancelled':
        // A cancel records who cancelled, as an answer records who answered.
        return `cancelled_${responderLabel(parseResponder(message.metadata.responded_by), me)}`;
      case 'expired':
      case 'pending':
        continue;
    }
  }
  return 'expired';
}
