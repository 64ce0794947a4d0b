/**
 * A question's draft kept across navigation and reloads, as the composer's
 * draft is: in the page's `KeyStore` (sessionStorage), one entry per person
 * and pending ID, so a draft never shows to someone else signed in on the
 * same tab later. What is read back is checked field by field: a value
 * another version of the app wrote, or a hand-edited one, reads as no draft.
 */
import type { KeyStore } from './late-answer.js';
import type { DraftAnswers } from './question-answers.js';
import type { Answer } from './types.js';

/** Kept as JSON objects by question ID, read back into Maps (`question-answers.ts`). */
export interface KeptQuestionDraft extends DraftAnswers {
  activeIndex: number;
}

export function questionDraftKey(userId: string, pendingId: string): string {
  return `clarion.question-draft.${userId}.${pendingId}`;
}

export function readQuestionDraft(store: KeyStore, key: string): KeptQuestionDraft | undefined {
  let value: unknown;
  try {
    value = JSON.parse(store.getItem(key) ?? 'null');
  } catch {
    return undefined;
  }
  if (!isRecord(value)) return undefined;
  const { answers, drafts, activeIndex } = value;
  if (!isRecord(answers) || !isRecord(drafts)) return undefined;
  if (typeof activeIndex !== 'number' || !Number.isInteger(activeIndex) || activeIndex < 0)
    return undefined;
  if (!Object.values(drafts).every((text) => typeof text === 'string')) return undefined;
  if (!Object.entries(answers).every(([id, answer]) => isAnswer(id, answer))) return undefined;
  // `Object.entries` lists own keys only: JSON's `__proto__` is one, read as a question ID.
  return {
    answers: new Map(Object.entries(answers as Record<string, Answer>)),
    drafts: new Map(Object.entries(drafts as Record<string, string>)),
    activeIndex,
  };
}

/**
 * Keeps `draft`; one with nothing the person wrote or picked removes the entry
 * instead (a step only looked at is not worth bringing back).
 */
export function keepQuestionDraft(store: KeyStore, key: string, draft: KeptQuestionDraft): void {
  const empty = draft.answers.size === 0 && [...draft.drafts.values()].every((text) => text === '');
  // `Object.fromEntries` makes each an own key, `__proto__` too, which JSON then writes.
  const kept = {
    answers: Object.fromEntries(draft.answers),
    drafts: Object.fromEntries(draft.drafts),
    activeIndex: draft.activeIndex,
  };
  try {
    if (empty) store.removeItem(key);
    else store.setItem(key, JSON.stringify(kept));
  } catch {
    // A full or refused store: the draft lives on in the page, as before keeping it.
  }
}

export function dropQuestionDraft(store: KeyStore, key: string): void {
  store.removeItem(key);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isAnswer(questionId: string, value: unknown): boolean {
  return (
    isRecord(value) &&
    value.question_id === questionId &&
    Array.isArray(value.selected_options) &&
    value.selected_options.every((option) => typeof option === 'string') &&
    typeof value.custom_text === 'string'
  );
}
