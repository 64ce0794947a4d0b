/**
 * Every refusal of a tool's arguments has the catalogue's shape, through the
 * SDK's own client: input its wire schema refuses (too few options, an ID
 * with a space, text too long, an unknown key, a wrong type, a label that
 * shows nothing) is a tool error whose structured content is `{error, code,
 * issues}`, as a refusal the service finds (labels that read the same) is,
 * never the SDK's `-32602` text; the code and the fields
 * are REST's for the same body, and the tool does not run.
 *
 * Checking arguments does not depend on the dialect, so this runs on SQLite.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PENDING_ID_CHARS, MAX_PROMPT_CHARS, type ErrorBody } from '../../src/wire/index.js';
import { TWO_QUESTIONS } from '../support/clarification-harness.js';
import { DRIVERS } from '../support/databases.js';
import { mcpHarness, structured, type McpHarness } from './mcp-harness.js';

const option = (id: string) => ({ id, label: `Option ${id}`, description: 'An option' });
const question = (fields: Record<string, unknown>) => ({
  prompt: 'Which one?',
  options: [option('a'), option('b')],
  ...fields,
});

interface Refusal {
  readonly tool: string;
  readonly args: Record<string, unknown>;
  readonly code: 'invalid_request' | 'invalid_text';
  /** Each issue's path, and a word its message must hold. */
  readonly issues: Record<string, string>;
}

const REFUSALS: Record<string, Refusal> = {
  'one option': {
    tool: 'ask_user_question',
    args: { questions: [question({ options: [option('a')] })] },
    code: 'invalid_request',
    issues: { 'questions.0.options': 'at least 2 options' },
  },
  'an option ID with a space': {
    tool: 'ask_user_question',
    args: { questions: [question({ options: [option('a b'), option('c')] })] },
    code: 'invalid_request',
    issues: { 'questions.0.options.0.id': 'letters, digits' },
  },
  'a prompt too long, and an unknown key': {
    tool: 'ask_user_question',
    args: { questions: [question({ prompt: 'p'.repeat(MAX_PROMPT_CHARS + 1) })], urgent: true },
    code: 'invalid_request',
    issues: { 'questions.0.prompt': `at most ${MAX_PROMPT_CHARS}`, urgent: 'unknown field' },
  },
  // A string has a length too: only its type is wrong, not its number of questions.
  'a string where the questions belong': {
    tool: 'ask_user_question',
    args: { questions: 'which?' },
    code: 'invalid_request',
    issues: { questions: 'expected array' },
  },
  // A person could not tell these apart, nor see the second at all.
  'option labels that read the same, a Cyrillic А for a Latin A': {
    tool: 'ask_user_question',
    args: {
      questions: [
        question({
          options: [
            { id: 'a', label: 'Allow', description: 'Run it' },
            { id: 'b', label: '\u0410llow', description: 'Do not run it' },
          ],
        }),
      ],
    },
    code: 'invalid_request',
    issues: { 'questions.0.options.1.label': 'reads the same as options.0.label' },
  },
  'an option label of only the Braille blank': {
    tool: 'ask_user_question',
    args: {
      questions: [
        question({ options: [option('a'), { id: 'b', label: '\u2800', description: 'Nothing' }] }),
      ],
    },
    code: 'invalid_request',
    issues: { 'questions.0.options.1.label': 'invisible characters' },
  },
  'NUL in a prompt': {
    tool: 'ask_user_question',
    args: { questions: [question({ prompt: 'Which\u0000one?' })] },
    code: 'invalid_text',
    issues: { 'questions.0.prompt': 'NUL' },
  },
  'a pending ID too long and a timeout of the wrong type': {
    tool: 'wait_for_answer',
    args: { pending_id: 'p'.repeat(MAX_PENDING_ID_CHARS + 1), timeout_seconds: 'soon' },
    code: 'invalid_request',
    issues: { pending_id: `${MAX_PENDING_ID_CHARS}`, timeout_seconds: 'expected number' },
  },
  'a page of no bundles': {
    tool: 'list_pending_questions',
    args: { limit: 0 },
    code: 'invalid_request',
    issues: { limit: '>=1' },
  },
  'no pending ID': {
    tool: 'answer_question',
    args: { rejected: true },
    code: 'invalid_request',
    issues: { pending_id: 'expected string' },
  },
};

function refusalOf(result: CallToolResult) {
  expect(result.isError).toBe(true);
  const content = result.structuredContent as
    { error: string; code: string; issues?: { path: string; message: string }[] } | undefined;
  if (!content) throw new Error(`no structured content: ${JSON.stringify(result.content)}`);
  const text = result.content[0];
  return { ...content, text: text?.type === 'text' ? text.text : '' };
}

describe('tool arguments refused on sqlite', () => {
  let m: McpHarness;
  let agent: Client;
  let member: Client;

  beforeAll(async () => {
    m = await mcpHarness(DRIVERS[0] ?? 'sqlite');
    agent = await m.connect(m.tokens.agent);
    member = await m.connect(m.tokens.member);
  });

  afterAll(async () => {
    await m.dispose();
  });

  it.each(Object.entries(REFUSALS))('%s: a tool error in the catalogue shape', async (_, case_) => {
    // answer_question is offered only to a person.
    const caller = case_.tool === 'answer_question' ? member : agent;
    const refused = refusalOf(await m.call(caller, case_.tool, case_.args));
    expect(refused.code).toBe(case_.code);
    expect(refused.error).toBe(
      case_.code === 'invalid_text'
        ? 'text must be well-formed UTF-8 without NUL characters'
        : `invalid arguments for ${case_.tool}`,
    );
    const issues = refused.issues ?? [];
    expect(issues.map((issue) => issue.path).sort()).toEqual(Object.keys(case_.issues).sort());
    for (const issue of issues) {
      expect(issue.message).toContain(case_.issues[issue.path]);
      // The text copy names every field too, for clients that show only text.
      expect(refused.text).toContain(`- ${issue.path}: ${issue.message}`);
    }
    expect(refused.text).not.toContain('-32602');
  });

  it('says only that the questions are of the wrong type, not how many they may be', async () => {
    const refused = refusalOf(await m.call(agent, 'ask_user_question', { questions: 'which?' }));
    expect(refused.issues).toEqual([
      { path: 'questions', message: 'Invalid input: expected array, received string' },
    ]);
  });

  it('runs no tool for refused arguments: nothing is asked', async () => {
    await m.call(agent, 'ask_user_question', { ...TWO_QUESTIONS, urgent: true });
    const person = await m.connect(m.tokens.member);
    expect(structured(await m.call(person, 'list_pending_questions', {})).pending).toEqual([]);
  });

  it('answers an answer as REST answers the same body: the same code and fields', async () => {
    const body = {
      answers: [{ question_id: 'q1', selected_options: 'q1_opt1', note: 'x' }],
      rejected: 'no',
    };
    const rest = await m.respond('some-pending-id', body, m.tokens.member);
    expect(rest.status).toBe(400);
    const restBody = (await rest.json()) as ErrorBody;
    const person = await m.connect(m.tokens.member);
    const refused = refusalOf(
      await m.call(person, 'answer_question', { pending_id: 'some-pending-id', ...body }),
    );
    expect(refused.code).toBe(restBody.code);
    // REST may name a field twice (a size check on a value of the wrong type); the fields agree.
    const paths = (issues: unknown) => [
      ...new Set((issues as { path: string }[]).map((issue) => issue.path).sort()),
    ];
    expect(paths(refused.issues)).toEqual(paths(restBody.details));
    expect(paths(refused.issues)).toEqual([
      'answers.0.note',
      'answers.0.selected_options',
      'rejected',
    ]);
  });
});
