/**
 * How a bundle the person was still composing an answer for was settled
 * somewhere else, as far as the transcript rows say: by this person in
 * another tab (the web surface), by this person through another surface, by
 * someone else, cancelled, or no longer active (expired, or the conversation
 * moved on). Pure, so the labels are tested without a browser.
 */
import { parseResponder } from './responder.js';
import { questionOfRow, type ModelState } from './read-model.js';
import type { Responder } from './types.js';

export type SettledElsewhere =
  'another_tab' | 'you_elsewhere' | 'someone_else' | 'cancelled' | 'expired';

/** Who decided, relative to `me`: one label for the banner and the winner view alike. */
export function responderLabel(
  responder: Responder | null,
  me: string | undefined,
): 'another_tab' | 'you_elsewhere' | 'someone_else' {
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
        return 'cancelled';
      case 'expired':
      case 'pending':
        continue;
    }
  }
  return 'expired';
}
