/**
 * Pure rules for what an agent may ask (DESIGN §5). The shape and its limits
 * are the wire's `askInput`; this normalizes a parsed call: missing IDs
 * default to `qN` and `qN_optM` (N and M are 1-based positions), duplicates
 * (IDs, and option labels that read the same: `labelsReadingTheSame`) are refused,
 * and the call's content gets a fingerprint.
 */
import { createHash } from 'node:crypto';
import { askInput, labelsReadingTheSame, textIssues, type Question } from '../wire/index.js';

export type { AskInput, Question, QuestionOption } from '../wire/index.js';

export interface NormalizedAsk {
  questions: Question[];
  context: string;
  /** Identity of the call's content, so an identical retry reuses its bundle. */
  fingerprint: string;
}

export type AskValidation =
  { ok: true; value: NormalizedAsk } | { ok: false; issues: { path: string; message: string }[] };

/** Validates and normalizes an `ask_user_question` call. */
export function normalizeAsk(raw: unknown): AskValidation {
  // The surfaces refuse such text first, as `invalid_text`; this keeps it out of every other caller's ask.
  const badText = textIssues(raw);
  if (badText.length > 0) return { ok: false, issues: badText };
  const parsed = askInput.safeParse(raw);
  if (!parsed.success) {
    return {
      ok: false,
      issues: parsed.error.issues.map((issue) => ({
        path: issue.path.join('.'),
        message: issue.message,
      })),
    };
  }
  const issues: { path: string; message: string }[] = [];
  const questions = parsed.data.questions.map((question, questionIndex): Question => {
    const number = questionIndex + 1;
    const options = question.options.map((option, optionIndex) => ({
      option_id: option.id ?? `q${number}_opt${optionIndex + 1}`,
      label: option.label,
      description: option.description,
    }));
    firstOfEach(options.map((option) => option.option_id)).forEach((first, optionIndex) => {
      if (first === undefined) return;
      issues.push({
        path: `questions.${questionIndex}.options.${optionIndex}.id`,
        message: `duplicate option id: the same as options.${first}.id`,
      });
    });
    // Two choices that read the same cannot be told apart by the person choosing.
    labelsReadingTheSame(options.map((option) => option.label)).forEach((first, optionIndex) => {
      if (first === undefined) return;
      issues.push({
        path: `questions.${questionIndex}.options.${optionIndex}.label`,
        message: `duplicate option label: reads the same as options.${first}.label`,
      });
    });
    return {
      id: question.id ?? `q${number}`,
      title: question.title ?? '',
      prompt: question.prompt,
      options,
      multi_select: question.multi_select ?? false,
    };
  });
  firstOfEach(questions.map((question) => question.id)).forEach((first, questionIndex) => {
    if (first === undefined) return;
    issues.push({
      path: `questions.${questionIndex}.id`,
      message: `duplicate question id: the same as questions.${first}.id`,
    });
  });
  if (issues.length > 0) return { ok: false, issues };
  const context = parsed.data.context ?? '';
  const fingerprint = createHash('sha256')
    .update(JSON.stringify({ questions, context }))
    .digest('hex');
  return { ok: true, value: { questions, context, fingerprint } };
}

/**
 * For each ID, the position of its first occurrence when it repeats one, else undefined: the
 * refusal names the later copy, whose ID may be a default the agent never wrote.
 */
function firstOfEach(ids: readonly string[]): (number | undefined)[] {
  const firstAt = new Map<string, number>();
  return ids.map((id, at) => {
    const first = firstAt.get(id);
    if (first === undefined) firstAt.set(id, at);
    return first;
  });
}
