/**
 * The transcript note for an unconfirmed delivery, and the plain-text form of
 * an answer sent as an ordinary message (DESIGN §5.2 "Late answers"). Zod-free
 * so the browser imports it directly: the server writes the note's resend
 * text with the same formatter the web app uses for a late answer, so both
 * read alike.
 *
 * An unconfirmed delivery is an answer that was handed to the agent (a live
 * waiter took it, or a successor turn's prompt was attempted) while the turn
 * that carried it never finished before a restart: the at-most-once rule keeps
 * it terminal, and the note tells the person it may never have been acted on.
 */

/** The transcript type of the note (author `system`). */
export const DELIVERY_UNCONFIRMED_TYPE = 'delivery_unconfirmed';

/** The note's `metadata`: which bundle, and the ordinary message that would send it again. */
export interface DeliveryUnconfirmedNote {
  /** Not `pending_id`: the note must never read as a row of the bundle. */
  clarification_pending_id: string;
  resend_text: string;
  /** Stable per bundle, so sending again twice (or from two tabs) admits one message. */
  resend_admission_key: string;
}

/** The note row's own admission key: one note per bundle, however often recovery runs. */
export function deliveryUnconfirmedNoteKey(pendingId: string): string {
  return `delivery-unconfirmed:${pendingId}`;
}

export function resendAdmissionKey(pendingId: string): string {
  return `resend:${pendingId}`;
}

/** The note's metadata when `metadata` is one, else undefined. */
export function deliveryUnconfirmedNoteOf(
  metadata: Readonly<Record<string, unknown>>,
): DeliveryUnconfirmedNote | undefined {
  const {
    clarification_pending_id: pendingId,
    resend_text: text,
    resend_admission_key: key,
  } = metadata;
  if (typeof pendingId !== 'string' || typeof text !== 'string' || typeof key !== 'string') {
    return undefined;
  }
  if (pendingId === '' || text.trim() === '' || key === '') return undefined;
  return { clarification_pending_id: pendingId, resend_text: text, resend_admission_key: key };
}

export interface AnsweredQuestion {
  question_id: string;
  prompt: string;
  options: readonly { option_id: string; label: string }[];
}

export interface GivenAnswer {
  question_id: string;
  selected_options: readonly string[];
  custom_text: string;
}

/**
 * An answer as ordinary user text: each question's prompt, then the chosen
 * labels and custom text. Plain text, never a privileged block.
 */
export function formatAnswerAsMessage(
  questions: readonly AnsweredQuestion[],
  answers: readonly GivenAnswer[],
): string {
  const blocks = questions.map((question) => {
    const answer = answers.find((item) => item.question_id === question.question_id);
    const labels = (answer?.selected_options ?? []).map(
      (id) => question.options.find((option) => option.option_id === id)?.label ?? id,
    );
    const custom = answer?.custom_text.trim() ?? '';
    const parts = [...labels, ...(custom === '' ? [] : [custom])];
    return `${question.prompt}\n${parts.length > 0 ? parts.join('; ') : '—'}`;
  });
  return blocks.join('\n\n');
}
