/**
 * The clarification contract (DESIGN §5): what an agent may ask, what a person
 * sends back, and every reply about a bundle. Shapes and limits only; whether
 * an answer fits its bundle is the resolver's rule (`clarification/outcome.ts`).
 */
import { z } from 'zod';
import { responder, rowStatus, timestamp, visibleText } from './common.js';
import {
  MAX_ANSWER_TEXT_CODE_POINTS,
  MAX_CONTEXT_CHARS,
  MAX_ID_CHARS,
  MAX_OPTION_DESCRIPTION_CHARS,
  MAX_OPTION_LABEL_CHARS,
  MAX_OPTIONS,
  MAX_PROMPT_CHARS,
  MAX_QUESTION_TITLE_CHARS,
  MAX_QUESTIONS,
  MIN_OPTIONS,
} from './limits.js';
import { codePoints } from './text.js';

const ID_PATTERN = new RegExp(`^[A-Za-z0-9_.-]{1,${MAX_ID_CHARS}}$`);
const id = z.string().regex(ID_PATTERN, `must be 1–${MAX_ID_CHARS} letters, digits, _ . or -`);

/**
 * Custom text and reject reasons: capped in code points, the unit people count
 * in. zod's `max` counts UTF-16 units, so the cap is a refinement, and the
 * JSON Schema bound is stated as metadata: `maxLength` counts code points too.
 */
const answerText = z
  .string()
  .refine((value) => codePoints(value) <= MAX_ANSWER_TEXT_CODE_POINTS, {
    error: `must be at most ${MAX_ANSWER_TEXT_CODE_POINTS} characters`,
  })
  .meta({ maxLength: MAX_ANSWER_TEXT_CODE_POINTS })
  .describe(`At most ${MAX_ANSWER_TEXT_CODE_POINTS} Unicode code points`);

// ---------------------------------------------------------------- asking

export const optionInput = z.strictObject({
  id: id.optional(),
  label: visibleText(MAX_OPTION_LABEL_CHARS),
  description: visibleText(MAX_OPTION_DESCRIPTION_CHARS),
});

export const questionInput = z.strictObject({
  id: id.optional(),
  title: z.string().trim().max(MAX_QUESTION_TITLE_CHARS).optional(),
  prompt: visibleText(MAX_PROMPT_CHARS),
  options: z
    .array(optionInput)
    .min(MIN_OPTIONS, `needs at least ${MIN_OPTIONS} options`)
    .max(MAX_OPTIONS, `allows at most ${MAX_OPTIONS} options`),
  multi_select: z.boolean().optional(),
});

/** `ask_user_question`'s input: 1–4 questions and an optional shared context. */
export const askInput = z.strictObject({
  questions: z
    .array(questionInput)
    .min(1, 'needs at least 1 question')
    .max(MAX_QUESTIONS, `allows at most ${MAX_QUESTIONS} questions`),
  context: z.string().trim().max(MAX_CONTEXT_CHARS).optional(),
});
export type AskInput = z.input<typeof askInput>;

// ---------------------------------------------------------------- a bundle as stored and shown

export const questionOption = z
  .object({ option_id: z.string(), label: z.string(), description: z.string() })
  .meta({ id: 'QuestionOption' });
export type QuestionOption = z.infer<typeof questionOption>;

export const question = z
  .object({
    id: z.string(),
    title: z.string(),
    prompt: z.string(),
    options: z.array(questionOption),
    multi_select: z.boolean(),
  })
  .meta({ id: 'Question' });
export type Question = z.infer<typeof question>;

// ---------------------------------------------------------------- responding (DESIGN §5.1)

export const respondInputShape = {
  answers: z
    .array(
      z.strictObject({
        question_id: z.string().min(1).max(MAX_ID_CHARS),
        selected_options: z.array(z.string().min(1).max(MAX_ID_CHARS)).max(MAX_OPTIONS).optional(),
        custom_text: answerText.optional(),
      }),
    )
    .max(MAX_QUESTIONS)
    .optional()
    .describe('One answer per question: option IDs and/or custom text'),
  rejected: z.boolean().optional().describe('Skip the questions instead of answering'),
  reject_reason: answerText.optional(),
};

/** `POST /api/v1/clarification/:pendingId/respond`'s body. */
export const respondBody = z.strictObject(respondInputShape).meta({ id: 'RespondBody' });
export type RespondBody = z.input<typeof respondBody>;
export type RespondInput = z.output<typeof respondBody>;

export const answer = z
  .object({
    question_id: z.string(),
    selected_options: z.array(z.string()),
    custom_text: z.string(),
  })
  .meta({ id: 'Answer' });
export type Answer = z.infer<typeof answer>;

/** The decided response, identical for the winner and every later caller. */
export const clarificationResponse = z
  .object({
    pending_id: z.string(),
    answers: z.array(answer),
    rejected: z.boolean(),
    reject_reason: z.string(),
    responded_at: timestamp,
    /** Null only for answers recorded before Clarion kept who decided. */
    responded_by: responder.nullable(),
  })
  .meta({ id: 'ClarificationResponse' });
export type ClarificationResponse = z.infer<typeof clarificationResponse>;

/** The 200 reply of respond (REST) and `answer_question` (MCP). */
export const respondReply = z
  .object({
    claimed: z.boolean(),
    status: z.enum(['answered', 'rejected']),
    response: clarificationResponse,
  })
  .meta({ id: 'RespondReply' });
export type RespondReply = z.infer<typeof respondReply>;

export const cancelReply = z.object({ cancelled: z.literal(true) }).meta({ id: 'CancelReply' });

// ---------------------------------------------------------------- reading bundles

export const pendingQuestion = z
  .object({
    question_id: z.string(),
    title: z.string(),
    prompt: z.string(),
    multi_select: z.boolean(),
    status: rowStatus,
    options: z.array(questionOption),
  })
  .meta({ id: 'PendingQuestion' });
export type PendingQuestion = z.infer<typeof pendingQuestion>;

export const pendingBundle = z
  .object({
    pending_id: z.string(),
    task_id: z.string(),
    session_id: z.string(),
    turn_id: z
      .string()
      .describe('The turn it was asked in: a newer turn of its session supersedes it'),
    created_at: timestamp,
    context: z.string(),
    detached: z.boolean(),
    questions: z.array(pendingQuestion),
  })
  .meta({ id: 'PendingBundle' });
export type PendingBundle = z.infer<typeof pendingBundle>;

/** One page of the inbox, as `list_pending_questions` returns it. */
export const pendingPage = z.object({
  pending: z.array(pendingBundle),
  next_cursor: z.string().nullable(),
});
export type PendingPage = z.infer<typeof pendingPage>;

/** `GET /api/v1/pending`'s reply. */
export const pendingListReply = z
  .object({ bundles: z.array(pendingBundle), next_cursor: z.string().nullable() })
  .meta({ id: 'PendingList' });

/** `GET /api/v1/clarification/:pendingId`'s reply: one bundle in any state. */
export const bundleView = z
  .object({
    pending_id: z.string(),
    task_id: z.string(),
    session_id: z.string(),
    status: rowStatus,
    active: z.boolean(),
    detached: z.boolean(),
    delivery_pending: z.boolean().describe('A claim whose hand-off is not confirmed yet'),
    context: z.string(),
    created_at: timestamp,
    questions: z.array(question.extend({ status: rowStatus })),
    response: clarificationResponse.nullable(),
  })
  .meta({ id: 'Bundle' });
export type BundleView = z.infer<typeof bundleView>;
