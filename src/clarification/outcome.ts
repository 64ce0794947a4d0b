/**
 * Pure rules for a person's response to a bundle (DESIGN §5.1): validation
 * against the bundle's questions, normalization, and reconstruction of the
 * winner's response from stored rows. Everything here is deterministic, so the
 * winner and every later caller see the same body.
 */
import {
  answerText,
  codePoints,
  isBlankText,
  MAX_ANSWER_TEXT_CODE_POINTS,
  textProblem,
  type Answer,
  type Issue,
  type Question,
  type RespondInput,
} from '../wire/index.js';

export type { Answer, ClarificationResponse, Issue, RespondInput } from '../wire/index.js';
export { MAX_ANSWER_TEXT_CODE_POINTS };

/** A decision before it is claimed: what will be stored on the rows. */
export interface Decision {
  status: 'answered' | 'rejected';
  answers: Answer[];
  reject_reason: string;
}

export type DecisionResult = { ok: true; decision: Decision } | { ok: false; issues: Issue[] };

/** Checks a response against the bundle's questions and normalizes it. */
export function decide(questions: readonly Question[], input: RespondInput): DecisionResult {
  const issues: Issue[] = [];
  const reason = input.reject_reason ?? '';
  const reasonProblem = textProblem(reason);
  if (reasonProblem) issues.push({ path: 'reject_reason', message: reasonProblem });
  if (codePoints(reason) > MAX_ANSWER_TEXT_CODE_POINTS) {
    issues.push({
      path: 'reject_reason',
      message: `must be at most ${MAX_ANSWER_TEXT_CODE_POINTS} characters`,
    });
  }
  if (input.rejected === true) {
    if (input.answers !== undefined && input.answers.length > 0) {
      issues.push({ path: 'answers', message: 'must be empty when rejected' });
    }
    if (issues.length > 0) return { ok: false, issues };
    return {
      ok: true,
      decision: { status: 'rejected', answers: [], reject_reason: answerText(reason) },
    };
  }
  if (input.reject_reason !== undefined) {
    issues.push({ path: 'reject_reason', message: 'is only allowed with rejected: true' });
  }
  const answers = input.answers ?? [];
  if (answers.length !== questions.length) {
    issues.push({
      path: 'answers',
      message: `expected exactly ${questions.length} answer(s), got ${answers.length}`,
    });
  }
  const byId = new Map(questions.map((question) => [question.id, question]));
  const seen = new Set<string>();
  answers.forEach((answer, index) => {
    const path = `answers.${index}`;
    const question = byId.get(answer.question_id);
    if (!question) {
      issues.push({ path: `${path}.question_id`, message: 'is not a question of this bundle' });
      return;
    }
    if (seen.has(answer.question_id)) {
      issues.push({ path: `${path}.question_id`, message: 'is answered more than once' });
    }
    seen.add(answer.question_id);
    const optionIds = new Set(question.options.map((option) => option.option_id));
    const selected = answer.selected_options ?? [];
    for (const option of selected) {
      if (!optionIds.has(option)) {
        issues.push({ path: `${path}.selected_options`, message: `unknown option ${option}` });
      }
    }
    if (!question.multi_select && new Set(selected).size > 1) {
      issues.push({ path: `${path}.selected_options`, message: 'allows only one option' });
    }
    const text = answer.custom_text ?? '';
    const problem = textProblem(text);
    if (problem) issues.push({ path: `${path}.custom_text`, message: problem });
    if (codePoints(text) > MAX_ANSWER_TEXT_CODE_POINTS) {
      issues.push({
        path: `${path}.custom_text`,
        message: `must be at most ${MAX_ANSWER_TEXT_CODE_POINTS} characters`,
      });
    }
    // Only whitespace or invisible characters (a zero-width space) says nothing.
    if (selected.length === 0 && isBlankText(text)) {
      issues.push({ path, message: 'needs a selected option or custom text' });
    }
  });
  if (issues.length > 0) return { ok: false, issues };

  const given = new Map(answers.map((answer) => [answer.question_id, answer]));
  const normalized = questions.map((question): Answer => {
    const answer = given.get(question.id);
    const selected = new Set(answer?.selected_options ?? []);
    return {
      question_id: question.id,
      // Option order, not click order, so the same choice always reads the same.
      selected_options: question.options
        .map((option) => option.option_id)
        .filter((optionId) => selected.has(optionId)),
      custom_text: answerText(answer?.custom_text ?? ''),
    };
  });
  return { ok: true, decision: { status: 'answered', answers: normalized, reject_reason: '' } };
}
