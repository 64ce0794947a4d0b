/**
 * The body caps hold the largest body the character limits allow, however a
 * client writes it: every character a code point beyond the BMP, and JSON
 * that escapes it as two `\uXXXX` (Python's `json.dumps` by default). A
 * person meets a limit in characters, never a 413 first.
 */
import { describe, expect, it } from 'vitest';
import { askInput } from './clarification.js';
import {
  MAX_ADMISSION_KEY_CHARS,
  MAX_BODY_BYTES,
  MAX_CONTEXT_CHARS,
  MAX_FORM_FIELD_NAME_CHARS,
  MAX_FORM_FIELDS,
  MAX_FORM_TEXT_CODE_POINTS,
  MAX_ID_CHARS,
  MAX_MCP_BODY_BYTES,
  MAX_MESSAGE_CHARS,
  MAX_OPTION_DESCRIPTION_CHARS,
  MAX_OPTION_LABEL_CHARS,
  MAX_OPTIONS,
  MAX_PROMPT_CHARS,
  MAX_QUESTION_TITLE_CHARS,
  MAX_QUESTIONS,
} from './limits.js';
import { messageBody } from './sessions.js';

const WIDE = '😀';

/** JSON with everything beyond ASCII escaped, as `ensure_ascii` writers send it. */
function escapedJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[\u0080-\uffff]/g,
    (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

function bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

const wide = (chars: number) => WIDE.repeat(chars);
const idOf = (prefix: string, index: number) =>
  `${prefix}${String(index)}`.padEnd(MAX_ID_CHARS, 'x');

describe('body caps', () => {
  it('hold the longest message', () => {
    const body = {
      text: wide(MAX_MESSAGE_CHARS),
      admission_key: 'k'.repeat(MAX_ADMISSION_KEY_CHARS),
    };
    expect(messageBody.safeParse(body).success).toBe(true);
    expect(bytes(escapedJson(body))).toBeLessThanOrEqual(MAX_BODY_BYTES);
  });

  it("hold a form's every text field full", () => {
    const content = Object.fromEntries(
      Array.from({ length: MAX_FORM_FIELDS }, (_, index) => [
        `field${String(index)}`.padEnd(MAX_FORM_FIELD_NAME_CHARS, 'x'),
        wide(MAX_FORM_TEXT_CODE_POINTS),
      ]),
    );
    const body = { decision: 'accept', content };
    expect(bytes(escapedJson(body))).toBeLessThanOrEqual(MAX_BODY_BYTES);
  });

  it('hold the largest ask as an MCP tool call', () => {
    const args = {
      questions: Array.from({ length: MAX_QUESTIONS }, (_, q) => ({
        id: idOf('q', q),
        // A title's limit counts UTF-16 units: half as many wide characters.
        title: wide(MAX_QUESTION_TITLE_CHARS / 2),
        prompt: wide(MAX_PROMPT_CHARS),
        options: Array.from({ length: MAX_OPTIONS }, (_, o) => ({
          id: idOf(`q${String(q)}o`, o),
          label: wide(MAX_OPTION_LABEL_CHARS),
          description: wide(MAX_OPTION_DESCRIPTION_CHARS),
        })),
        multi_select: true,
      })),
      context: wide(MAX_CONTEXT_CHARS),
    };
    expect(askInput.safeParse(args).error?.issues).toBeUndefined();
    const call = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'ask_user_question', arguments: args, _meta: { progressToken: 1 } },
    };
    expect(bytes(escapedJson(call))).toBeLessThanOrEqual(MAX_MCP_BODY_BYTES);
  });
});
