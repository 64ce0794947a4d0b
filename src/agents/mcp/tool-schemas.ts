/**
 * Input schemas of Clarion's MCP tools. `ask_user_question` takes exactly the
 * shapes and limits of `clarification/questions.ts`; `answer_question` the
 * limits of the REST respond body. The SDK turns these into the JSON Schema
 * clients see and refuses input that does not match with a tool error that
 * lists the issues.
 */
import { z } from 'zod';
import { askInput, MAX_PENDING_PAGE, respondInputShape } from '../../clarification/index.js';

export const DEFAULT_WAIT_SECONDS = 600;
export const MAX_WAIT_SECONDS = 3600;
const MAX_PENDING_ID_CHARS = 128;
const MAX_CURSOR_CHARS = 512;

const pendingId = z
  .string()
  .min(1)
  .max(MAX_PENDING_ID_CHARS)
  .describe('The pending_id a question was asked under');

export const askQuestionInput = askInput;

export const waitForAnswerInput = z.strictObject({
  pending_id: pendingId,
  timeout_seconds: z
    .number()
    .int()
    .min(1)
    .max(MAX_WAIT_SECONDS)
    .optional()
    .describe(`How long to wait, in seconds (default ${DEFAULT_WAIT_SECONDS})`),
});

export const listPendingInput = z.strictObject({
  cursor: z
    .string()
    .min(1)
    .max(MAX_CURSOR_CHARS)
    .optional()
    .describe('next_cursor of the previous page'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(MAX_PENDING_PAGE)
    .optional()
    .describe('Bundles per page (default 50)'),
});

export const answerQuestionInput = z.strictObject({
  pending_id: pendingId,
  ...respondInputShape,
});
