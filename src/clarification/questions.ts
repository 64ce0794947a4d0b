/**
 * Pure rules for what an agent may ask (DESIGN §5): 1–4 questions, each with
 * 2–6 options that have a label and a description. Missing IDs default to
 * `qN` and `qN_optM` (N and M are 1-based positions); duplicates are refused.
 * Lengths are capped so one call cannot flood a transcript.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { textProblem } from './text.js';

export const MAX_QUESTIONS = 4;
export const MIN_OPTIONS = 2;
export const MAX_OPTIONS = 6;
export const MAX_PROMPT_CHARS = 4000;
export const MAX_TITLE_CHARS = 80;
export const MAX_LABEL_CHARS = 200;
export const MAX_DESCRIPTION_CHARS = 1000;
export const MAX_CONTEXT_CHARS = 8000;

const ID_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;
const id = z.string().regex(ID_PATTERN, 'must be 1–64 letters, digits, _ . or -');
const storable = (value: string, ctx: z.RefinementCtx) => {
  const problem = textProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
};
const text = (max: number) =>
  z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`)
    .superRefine(storable);

export const optionInput = z.strictObject({
  id: id.optional(),
  label: text(MAX_LABEL_CHARS),
  description: text(MAX_DESCRIPTION_CHARS),
});

export const questionInput = z.strictObject({
  id: id.optional(),
  title: z.string().trim().max(MAX_TITLE_CHARS).superRefine(storable).optional(),
  prompt: text(MAX_PROMPT_CHARS),
  options: z
    .array(optionInput)
    .min(MIN_OPTIONS, `needs at least ${MIN_OPTIONS} options`)
    .max(MAX_OPTIONS, `allows at most ${MAX_OPTIONS} options`),
  multi_select: z.boolean().optional(),
});

export const askInput = z.strictObject({
  questions: z
    .array(questionInput)
    .min(1, 'needs at least 1 question')
    .max(MAX_QUESTIONS, `allows at most ${MAX_QUESTIONS} questions`),
  context: z.string().trim().max(MAX_CONTEXT_CHARS).superRefine(storable).optional(),
});

export type AskInput = z.input<typeof askInput>;

export interface QuestionOption {
  option_id: string;
  label: string;
  description: string;
}

export interface Question {
  id: string;
  title: string;
  prompt: string;
  options: QuestionOption[];
  multi_select: boolean;
}

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
    const optionIds = options.map((option) => option.option_id);
    if (new Set(optionIds).size !== optionIds.length) {
      issues.push({ path: `questions.${questionIndex}.options`, message: 'duplicate option id' });
    }
    return {
      id: question.id ?? `q${number}`,
      title: question.title ?? '',
      prompt: question.prompt,
      options,
      multi_select: question.multi_select ?? false,
    };
  });
  const questionIds = questions.map((question) => question.id);
  if (new Set(questionIds).size !== questionIds.length) {
    issues.push({ path: 'questions', message: 'duplicate question id' });
  }
  if (issues.length > 0) return { ok: false, issues };
  const context = parsed.data.context ?? '';
  const fingerprint = createHash('sha256')
    .update(JSON.stringify({ questions, context }))
    .digest('hex');
  return { ok: true, value: { questions, context, fingerprint } };
}
