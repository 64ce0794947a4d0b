/**
 * The scripted model the Claude Code suites run against the Messages API
 * stand-in: it calls the built-in `AskUserQuestion` once, then answers with
 * text that quotes the tool's result, so a test reads in Claude Code's final
 * message exactly what reached the tool.
 */
import { THREE_QUESTIONS } from '../support/ask-user-questions.js';
import type { AssistantBlock, MessagesRequest } from '../support/messages-api-stand-in.js';

const TOOL_USE_ID = 'toolu_standin_ask';

/** One single-choice question (Database) and one multi-select (Checks), with descriptions. */
export const ASK = { questions: THREE_QUESTIONS.slice(0, 2) };

/** What the final message starts with; the tool's result follows it. */
export const QUOTE_PREFIX = 'The tool said:';

/** The text of the tool result for our ask in the last user turn, if there is one. */
function askResult(request: MessagesRequest): string | undefined {
  const last = request.messages.at(-1);
  if (!last || typeof last.content === 'string') return undefined;
  for (const block of last.content) {
    if (block.type !== 'tool_result' || block.tool_use_id !== TOOL_USE_ID) continue;
    const content = block.content as string | { type: string; text?: string }[];
    return typeof content === 'string' ? content : content.map((part) => part.text ?? '').join('');
  }
  return undefined;
}

/** The model: ask with the built-in tool, then quote what came back; side requests get a word. */
export function askThenQuote(request: MessagesRequest): AssistantBlock[] {
  if (!request.tools?.some((tool) => tool.name === 'AskUserQuestion')) {
    return [{ type: 'text', text: 'Database choice' }];
  }
  const result = askResult(request);
  if (result !== undefined) return [{ type: 'text', text: `${QUOTE_PREFIX} ${result}` }];
  return [{ type: 'tool_use', id: TOOL_USE_ID, name: 'AskUserQuestion', input: ASK }];
}
