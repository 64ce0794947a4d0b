/**
 * Clarion's MCP tools on the wire: each tool's input, with the same limits as
 * REST (`answer_question` takes exactly the respond body), and the payloads
 * the tools return as structured content, gathered per tool as the output
 * schema it lists.
 */
import { z } from 'zod';
import { pendingPage, respondInputShape, respondReply } from './clarification.js';
import { visibleText } from './common.js';
import { issue } from './outcomes.js';
import {
  DEFAULT_PENDING_PAGE,
  DEFAULT_WAIT_SECONDS,
  MAX_ACTION_INSTRUCTIONS_CHARS,
  MAX_ACTION_TITLE_CHARS,
  MAX_CURSOR_CHARS,
  MAX_PENDING_ID_CHARS,
  MAX_PENDING_PAGE,
  MAX_URL_CHARS,
  MAX_WAIT_SECONDS,
} from './limits.js';

const pendingId = z
  .string()
  .min(1)
  .max(MAX_PENDING_ID_CHARS)
  .describe('The pending_id a question was asked under');

export { askInput as askQuestionInput } from './clarification.js';

/**
 * The `_meta` key of an `ask_user_question` call's progress notifications
 * that names its pending ID, from the first one, sent as soon as the
 * question is written: a client whose blocking ask is cut off before its
 * result (Clarion restarted) still learns what to pass to `wait_for_answer`.
 */
export const PENDING_ID_PROGRESS_META = 'clarion/pending_id';

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
    .describe(`Bundles per page (default ${DEFAULT_PENDING_PAGE})`),
});

export const answerQuestionInput = z.strictObject({ pending_id: pendingId, ...respondInputShape });

export const requestUserActionInput = z.strictObject({
  title: visibleText(MAX_ACTION_TITLE_CHARS).describe('What the person should do, briefly'),
  instructions: visibleText(MAX_ACTION_INSTRUCTIONS_CHARS).describe('How to do it, step by step'),
  url: z.string().trim().max(MAX_URL_CHARS).optional().describe('Where to do it (http or https)'),
});

// ---------------------------------------------------------------- structured results

export const selectedOption = z.object({ id: z.string(), label: z.string() });
export type SelectedOption = z.infer<typeof selectedOption>;

export const answerPayload = z.object({
  selected: z.array(selectedOption),
  custom_text: z.string(),
});
export type AnswerPayload = z.infer<typeof answerPayload>;

/** A decided bundle as an agent reads it: option labels keyed by question ID. */
export const decisionPayload = z.discriminatedUnion('status', [
  z.object({
    status: z.literal('answered'),
    pending_id: z.string(),
    answers: z.record(z.string(), answerPayload),
  }),
  z.object({ status: z.literal('skipped'), pending_id: z.string(), reason: z.string() }),
]);
export type DecisionPayload = z.infer<typeof decisionPayload>;

export const openPayload = z.object({
  status: z.literal('open'),
  pending_id: z.string(),
  message: z.string(),
});
export type OpenPayload = z.infer<typeof openPayload>;

/**
 * An ask whose caller cannot wait long (its client sends no progress token):
 * the question stays open and live, and `wait_for_answer` with `pending_id`
 * collects the answer.
 */
export const waitingPayload = z.object({
  status: z.literal('waiting'),
  pending_id: z.string(),
  message: z.string(),
});
export type WaitingPayload = z.infer<typeof waitingPayload>;

/**
 * `request_user_action`'s result; `answer_question` returns the REST respond
 * reply. `waiting`: the caller cannot wait long (no progress token), the
 * request stays open, and the person's answer comes as a new message once
 * the agent's turn ends (`message` says so).
 */
export const actionOutput = z.object({
  status: z.enum(['done', 'skipped', 'expired', 'waiting']),
  /** Why nobody answered, with `expired`; the person's own words, when they gave some, with `skipped`. */
  reason: z.string().optional(),
  request_id: z.string(),
  message: z.string().optional(),
});
export type ActionOutput = z.infer<typeof actionOutput>;

// ---------------------------------------------------------------- each tool's output

/** `ask_user_question`: decided, or still open (`waiting`: call `wait_for_answer` now). */
export const askQuestionOutput = z.discriminatedUnion('status', [
  ...decisionPayload.options,
  openPayload,
  waitingPayload,
]);

/** `wait_for_answer`: decided, or still open when the wait ended first. */
export const waitForAnswerOutput = z.discriminatedUnion('status', [
  ...decisionPayload.options,
  openPayload,
]);

export const listPendingOutput = pendingPage;

/** `answer_question`: REST's respond reply. */
export const answerQuestionOutput = respondReply;

export const requestUserActionOutput = actionOutput;

/** A tool error's structured content. */
export const toolErrorPayload = z.object({
  error: z.string(),
  code: z.string(),
  issues: z.array(issue).optional(),
});
export type ToolErrorPayload = z.infer<typeof toolErrorPayload>;

/**
 * How `/mcp` refuses a request at the HTTP level (no session, a body that is
 * not JSON-RPC, a media type, a quota): a JSON-RPC error, as the MCP SDK's
 * Streamable HTTP transport sends it, never the REST error body. `data.code`
 * names the catalogue's code where Clarion gave one (`invalid_text`,
 * `quota_exceeded`, `payload_too_large`).
 */
export const jsonRpcErrorReply = z
  .object({
    jsonrpc: z.literal('2.0'),
    error: z.object({ code: z.int(), message: z.string(), data: z.unknown().optional() }),
    id: z.union([z.string(), z.number(), z.null()]),
  })
  .meta({ id: 'JsonRpcError' });
