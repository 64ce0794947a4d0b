/**
 * Reads the result of Clarion's `ask_user_question` tool and words the demo
 * agent's reply. Pure. The result's `structuredContent` wins; otherwise its
 * first text block is parsed as JSON. Labels and custom text are quoted
 * verbatim, so a reply shows exactly what the agent received.
 */

export interface AnsweredQuestion {
  selected: { id: string; label: string }[];
  custom_text: string;
}

export type AskOutcome =
  | { status: 'answered'; answers: Record<string, AnsweredQuestion> }
  | { status: 'skipped'; reason: string }
  | { status: 'open'; pendingId: string; message: string }
  /** `code` is the tool error's catalogue code, when it says one. */
  | { status: 'error'; message: string; code?: string };

/** An MCP `CallToolResult`, read defensively: `structuredContent`, `content`, `isError`. */
export type ToolResultLike = Readonly<Record<string, unknown>>;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const stringOr = (value: unknown, fallback: string): string =>
  typeof value === 'string' ? value : fallback;

/** The first text block of a tool result, if any. */
export function resultText(result: ToolResultLike): string | undefined {
  if (!Array.isArray(result.content)) return undefined;
  for (const block of result.content) {
    if (isRecord(block) && block.type === 'text' && typeof block.text === 'string')
      return block.text;
  }
  return undefined;
}

/** The result's structured payload: `structuredContent`, else its text as JSON. */
export function resultPayload(result: ToolResultLike): unknown {
  if (isRecord(result.structuredContent)) return result.structuredContent;
  const text = resultText(result);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // Plain prose is a valid tool result; callers treat it as unstructured.
    return undefined;
  }
}

export function interpretAskResult(result: ToolResultLike): AskOutcome {
  if (result.isError === true) {
    const message = resultText(result) ?? 'the tool reported an error';
    const code = isRecord(result.structuredContent) ? result.structuredContent.code : undefined;
    return typeof code === 'string'
      ? { status: 'error', message, code }
      : { status: 'error', message };
  }
  const payload = resultPayload(result);
  if (!isRecord(payload)) {
    return { status: 'error', message: `unreadable result: ${resultText(result) ?? 'no content'}` };
  }
  switch (payload.status) {
    case 'answered':
      return { status: 'answered', answers: readAnswers(payload.answers) };
    case 'skipped':
      return { status: 'skipped', reason: stringOr(payload.reason, '') };
    case 'open':
      return {
        status: 'open',
        pendingId: stringOr(payload.pending_id, ''),
        message: stringOr(payload.message, ''),
      };
    default:
      return {
        status: 'error',
        message: `unknown status ${payload.status === undefined ? 'undefined' : JSON.stringify(payload.status)}`,
      };
  }
}

function readAnswers(raw: unknown): Record<string, AnsweredQuestion> {
  if (!isRecord(raw)) return {};
  const answers: Record<string, AnsweredQuestion> = {};
  for (const [questionId, answer] of Object.entries(raw)) {
    if (!isRecord(answer)) continue;
    const selected = Array.isArray(answer.selected)
      ? answer.selected.filter(isRecord).map((option) => ({
          id: stringOr(option.id, ''),
          label: stringOr(option.label, stringOr(option.id, '')),
        }))
      : [];
    answers[questionId] = { selected, custom_text: stringOr(answer.custom_text, '') };
  }
  return answers;
}

export const CONTINUE_LATER_REPLY = 'I will continue when you answer.';
export const SKIPPED_REPLY = 'You skipped the questions.';

/**
 * The reply to an ask. `questionIds` gives the order of the lines; answers
 * for IDs the agent did not ask come after, so nothing received is hidden.
 */
export function formatAskReply(outcome: AskOutcome, questionIds: readonly string[]): string {
  switch (outcome.status) {
    case 'skipped':
      return outcome.reason === '' ? SKIPPED_REPLY : `${SKIPPED_REPLY} Reason: "${outcome.reason}"`;
    case 'open':
      return CONTINUE_LATER_REPLY;
    case 'error':
      return errorReply(outcome);
    case 'answered': {
      const ids = [
        ...questionIds.filter((id) => id in outcome.answers),
        ...Object.keys(outcome.answers).filter((id) => !questionIds.includes(id)),
      ];
      if (ids.length === 0) return 'I got an answer without any choices.';
      return ids
        .map((id) => {
          const answer = outcome.answers[id];
          return `Answer to ${id}: ${answer ? describeAnswer(answer) : 'nothing'}`;
        })
        .join('\n');
    }
  }
}

/**
 * An ask that failed. Some failures come after the question was asked, and
 * must not read as if it never was: nobody may answer it any more
 * (`not_active`: cancelled, or expired with its session), or this agent's
 * credential ended while it waited (`unauthorized`).
 */
function errorReply(outcome: Extract<AskOutcome, { status: 'error' }>): string {
  switch (outcome.code) {
    case 'not_active':
      return `The question is no longer open, so I stop waiting for it: ${outcome.message}`;
    case 'unauthorized':
      return `I can no longer wait for your answer: ${outcome.message}`;
    default:
      return `The question could not be asked: ${outcome.message}`;
  }
}

function describeAnswer(answer: AnsweredQuestion): string {
  const labels = answer.selected.map((option) => `"${option.label}"`).join(', ');
  const custom = answer.custom_text === '' ? '' : `wrote "${answer.custom_text}"`;
  if (labels !== '' && custom !== '') return `${labels} and ${custom}`;
  if (labels !== '') return labels;
  if (custom !== '') return custom;
  return 'nothing selected';
}
