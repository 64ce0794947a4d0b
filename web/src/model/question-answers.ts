/**
 * What a person composes for a bundle's questions: the answer picked or
 * typed for each, and its custom text as typed (which may not count as an
 * answer yet). Pure, for `useClarificationDraft`.
 *
 * Both are Maps keyed by question ID, and so is every other table of the web
 * app keyed by one (a bundle's questions): the agent chooses its question
 * IDs, and one called `__proto__` or `constructor` read from a plain object
 * is what every object inherits, not an answer.
 */
import { MAX_ANSWER_TEXT_CODE_POINTS } from '../../../src/wire/limits.js';
import { answerText, codePoints } from '../../../src/wire/text.js';
import type { Answer } from './types.js';

export interface DraftAnswers {
  readonly answers: ReadonlyMap<string, Answer>;
  /** Custom text as typed, per question. */
  readonly drafts: ReadonlyMap<string, string>;
}

export const NO_ANSWERS: DraftAnswers = { answers: new Map(), drafts: new Map() };

/**
 * Whether an answer counts: an option picked or text within the limit that
 * shows something (the server's rule: only invisible characters is no answer).
 */
export function isAnswered(answer: Answer | undefined): boolean {
  if (!answer) return false;
  const text = answerText(answer.custom_text);
  return (
    answer.selected_options.length > 0 ||
    (text !== '' && codePoints(text) <= MAX_ANSWER_TEXT_CODE_POINTS)
  );
}

/** How many of `questions` have an answer that counts. */
export function answeredCount(
  questions: readonly { question_id: string }[],
  answers: ReadonlyMap<string, Answer>,
): number {
  return questions.filter((question) => isAnswered(answers.get(question.question_id))).length;
}

/**
 * `answers` with `optionId` picked for `question`: the only one of a single
 * choice, toggled in a multiple one. Typed words stay beside it (custom text
 * is always allowed with an option): a pick never throws away what was written.
 */
export function withOptionPicked(
  answers: ReadonlyMap<string, Answer>,
  question: { question_id: string; multi_select: boolean },
  optionId: string,
): ReadonlyMap<string, Answer> {
  const previous = answers.get(question.question_id);
  const selected = previous?.selected_options ?? [];
  const next = new Map(answers);
  next.set(question.question_id, {
    question_id: question.question_id,
    selected_options: !question.multi_select
      ? [optionId]
      : selected.includes(optionId)
        ? selected.filter((other) => other !== optionId)
        : [...selected, optionId],
    custom_text: previous?.custom_text ?? '',
  });
  return next;
}

/**
 * `draft` with `text` typed for `questionId`: the answer takes the text when
 * it counts, and is gone when it does not and no option is picked.
 */
export function withCustomText(
  draft: DraftAnswers,
  questionId: string,
  text: string,
): DraftAnswers {
  const trimmed = answerText(text);
  const usable = trimmed !== '' && codePoints(trimmed) <= MAX_ANSWER_TEXT_CODE_POINTS;
  const kept = draft.answers.get(questionId)?.selected_options ?? [];
  const drafts = new Map(draft.drafts);
  drafts.set(questionId, text);
  const answers = new Map(draft.answers);
  if (!usable && kept.length === 0) answers.delete(questionId);
  else {
    answers.set(questionId, {
      question_id: questionId,
      selected_options: kept,
      custom_text: usable ? trimmed : '',
    });
  }
  return { answers, drafts };
}
