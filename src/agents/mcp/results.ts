/**
 * What the MCP tools hand back to an agent (pure). Every result carries the
 * same JSON twice: as `structuredContent` for clients that read it and as a
 * text copy for those that only show text. Answers are keyed by question ID
 * and carry option labels, so an agent never has to map option IDs back.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ClarificationResponse, Question } from '../../clarification/index.js';
import {
  OUTCOMES,
  type AnswerPayload,
  type DecisionPayload,
  type Failure,
  type Issue,
  type OpenPayload,
  type OutcomeEntry,
  type ToolErrorPayload,
  type WaitingPayload,
} from '../../wire/index.js';

/**
 * An ask whose wait ended because nobody may answer its question any more:
 * a person cancelled it, or its session ended and it expired. It is not
 * open, so the agent is not told to wait for it.
 */
export const QUESTION_CLOSED_MESSAGE =
  'the question was closed before anyone answered it (cancelled, or its session ended); no answer will come';

/** An ask whose wait ended because a newer turn of its session began: it is history now. */
export const QUESTION_SUPERSEDED_MESSAGE =
  'the conversation moved on to a newer turn before anyone answered; this question is closed and no answer will come';

export const OPEN_MESSAGE_SESSION =
  'The question stays open. The answer will come to you as a new message.';
export const OPEN_MESSAGE_EXTERNAL =
  'The question stays open. Call wait_for_answer with this pending_id to get the answer.';

/** The decided response as the agent reads it: labels from the question's options. */
export function decisionPayload(
  response: ClarificationResponse,
  questions: readonly Pick<Question, 'id' | 'options'>[],
): DecisionPayload {
  if (response.rejected) {
    return { status: 'skipped', pending_id: response.pending_id, reason: response.reject_reason };
  }
  const byId = new Map(questions.map((question) => [question.id, question]));
  // Own keys, never assignment: a question ID such as `__proto__` would set the prototype and vanish.
  const answers: Record<string, AnswerPayload> = Object.fromEntries(
    response.answers.map((answer): [string, AnswerPayload] => {
      const options = byId.get(answer.question_id)?.options ?? [];
      const selected = answer.selected_options.map((id) => ({
        id,
        // A stored answer only names options of its question; the ID stands in if one is gone.
        label: options.find((option) => option.option_id === id)?.label ?? id,
      }));
      return [answer.question_id, { selected, custom_text: answer.custom_text }];
    }),
  );
  return { status: 'answered', pending_id: response.pending_id, answers };
}

export function openPayload(pendingId: string, external: boolean): OpenPayload {
  return {
    status: 'open',
    pending_id: pendingId,
    message: external ? OPEN_MESSAGE_EXTERNAL : OPEN_MESSAGE_SESSION,
  };
}

export const ASK_WAITING_MESSAGE =
  'The person has not answered yet; the question stays open. Call wait_for_answer with ' +
  'this pending_id now to wait for the answer (call it again while it returns open).';

/** An ask returned early, before its client gives up on it (`bounded-ask.ts`). */
export function waitingPayload(pendingId: string): WaitingPayload {
  return { status: 'waiting', pending_id: pendingId, message: ASK_WAITING_MESSAGE };
}

/**
 * A call whose token was revoked while it ran: `unauthorized`, and nothing
 * else it could have learned. The question stays for the person; a holder of
 * a live token collects its answer.
 */
export function revokedResult(): CallToolResult {
  return toolFailure({ code: 'unauthorized', message: REVOKED_MESSAGE });
}

export const REVOKED_MESSAGE = 'the token of this call was revoked while it ran';

/** A successful tool result: structured content plus its JSON text copy. */
export function toolResult(payload: object): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(payload) }],
    structuredContent: { ...payload },
  };
}

/**
 * A service's failure as a tool error, through the outcome catalogue: the same
 * code and message REST gives, or the agent's own wording where its next step
 * differs (retry the same call).
 */
export function toolFailure(failed: Pick<Failure, 'code' | 'message' | 'details'>): CallToolResult {
  const entry: OutcomeEntry = OUTCOMES[failed.code];
  return toolError(
    entry.wire,
    failed.message ?? entry.mcpMessage ?? entry.message,
    Array.isArray(failed.details) ? failed.details : [],
  );
}

/**
 * A refused ask: at its bound, the agent also reads which of its tools show
 * and wait for what it already asked, instead of asking again.
 */
export function askFailure(failed: Pick<Failure, 'code' | 'message' | 'details'>): CallToolResult {
  if (failed.code !== 'too_many_open_requests') return toolFailure(failed);
  const said = failed.message ?? OUTCOMES.too_many_open_requests.mcpMessage;
  return toolFailure({ ...failed, message: `${said} ${OPEN_ASKS_NEXT_STEP}` });
}

export const OPEN_ASKS_NEXT_STEP =
  'list_pending_questions lists your open questions; wait_for_answer waits for a person to answer one.';

/** A tool error the agent can act on: the message, then one line per issue. */
function toolError(code: string, message: string, issues: readonly Issue[] = []): CallToolResult {
  const lines = issues.map(
    (issue) => `- ${issue.path === '' ? '(input)' : issue.path}: ${issue.message}`,
  );
  const payload: ToolErrorPayload = {
    error: message,
    code,
    ...(issues.length > 0 ? { issues: [...issues] } : {}),
  };
  return {
    isError: true,
    content: [{ type: 'text', text: [message, ...lines].join('\n') }],
    structuredContent: payload,
  };
}
