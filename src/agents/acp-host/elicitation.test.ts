/**
 * The elicitation reader and reply builder against the real Claude adapter's
 * own functions (0.101.0): the request is what it sends for `AskUserQuestion`,
 * and the reply is checked by what it reads back into the tool's answers.
 */
import {
  applyAskElicitationResponse,
  askUserQuestionsToCreateRequest,
  type AskUserQuestion,
} from '@agentclientprotocol/claude-agent-acp/dist/elicitation.js';
import type { CreateElicitationRequest } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { THREE_QUESTIONS } from '../../../test/support/ask-user-questions.js';
import { normalizeAsk } from '../../clarification/index.js';
import { MAX_QUESTION_TITLE_CHARS } from '../../wire/index.js';
import { classifyElicitation, questionsReply, type ElicitationKind } from './elicitation.js';

const QUESTIONS: AskUserQuestion[] = THREE_QUESTIONS;

function claudeRequest(questions = QUESTIONS): CreateElicitationRequest {
  return askUserQuestionsToCreateRequest(questions, 'agent-session', 'toolu_1');
}

function questionsOf(kind: ElicitationKind) {
  if (kind.kind !== 'questions') throw new Error(`expected questions, got ${kind.kind}`);
  return kind;
}

describe('classifyElicitation', () => {
  it("reads Claude's AskUserQuestion form as a valid ask with headers, options, descriptions and multi-select", () => {
    const read = questionsOf(classifyElicitation(claudeRequest()));
    expect(read.ask.context).toBe('Please answer the following questions.');
    expect(read.ask.questions).toEqual([
      {
        id: 'question_0',
        title: 'Database',
        prompt: 'Which database should the service use?',
        options: [
          { id: 'question_0_opt_1', label: 'PostgreSQL', description: 'One server, strong SQL' },
          { id: 'question_0_opt_2', label: 'SQLite', description: 'Embedded, no server' },
        ],
        multi_select: false,
      },
      expect.objectContaining({ id: 'question_1', title: 'Checks', multi_select: true }),
      expect.objectContaining({ id: 'question_2', prompt: 'How many replicas?' }),
    ]);
    expect(normalizeAsk(read.ask).ok).toBe(true);
  });

  it("takes a single question's prompt from the message, with no context", () => {
    const first = QUESTIONS[0];
    if (!first) throw new Error('fixture');
    const read = questionsOf(classifyElicitation(claudeRequest([first])));
    expect(read.ask.questions[0]?.prompt).toBe('Which database should the service use?');
    expect(read.ask.context).toBeUndefined();
  });

  it('reads plain enums and fills a missing description with the label', () => {
    const read = questionsOf(
      classifyElicitation({
        mode: 'form',
        sessionId: 's',
        message: 'Pick',
        requestedSchema: {
          type: 'object',
          properties: {
            question_1: { type: 'string', title: 'Mode', enum: ['fast', 'safe'] },
            question_1_custom: { type: 'string' },
          },
        },
      }),
    );
    expect(read.ask.questions[0]?.options).toEqual([
      { id: 'question_1_opt_1', label: 'fast', description: 'fast' },
      { id: 'question_1_opt_2', label: 'safe', description: 'safe' },
    ]);
  });

  it('asks a question whose text holds a NUL without it, and answers with the value as sent', () => {
    const read = questionsOf(
      classifyElicitation({
        mode: 'form',
        sessionId: 's',
        message: 'Pick\u0000 one',
        requestedSchema: {
          type: 'object',
          properties: {
            question_1: {
              type: 'string',
              title: 'Mo\u0000de',
              description: 'Which\u0000 mode?',
              oneOf: [
                { const: 'fa\u0000st', title: 'Fa\u0000st', description: 'q\u0000uick' },
                { const: 'safe', title: 'Safe' },
              ],
            },
            question_1_custom: { type: 'string' },
            question_2: { type: 'array', items: { enum: ['a\u0000', 'b'] } },
            question_2_custom: { type: 'string' },
          },
        },
      }),
    );
    // A person can be asked it (PostgreSQL keeps no NUL): not refused, so not declined unseen.
    expect(normalizeAsk(read.ask)).toMatchObject({ ok: true });
    expect(JSON.stringify(read.ask)).not.toContain('\\u0000');
    expect(read.ask.questions[0]?.options[0]).toEqual({
      id: 'question_1_opt_1',
      label: 'Fast',
      description: 'quick',
    });
    const reply = questionsReply(read.fields, {
      rejected: false,
      answers: [
        { question_id: 'question_1', selected_options: ['question_1_opt_1'], custom_text: '' },
        { question_id: 'question_2', selected_options: ['question_2_opt_1'], custom_text: '' },
      ],
    });
    expect(reply).toEqual({
      action: 'accept',
      content: { question_1: 'fa\u0000st', question_2: ['a\u0000'] },
    });
  });

  it('cuts a long title between whole characters, so the ask is not refused for half an emoji', () => {
    const title = 'a'.repeat(MAX_QUESTION_TITLE_CHARS - 1) + '\u{1F600} and more';
    const read = questionsOf(
      classifyElicitation({
        mode: 'form',
        sessionId: 's',
        message: 'Pick',
        requestedSchema: {
          type: 'object',
          properties: {
            question_1: { type: 'string', title, enum: ['fast', 'safe'] },
            question_1_custom: { type: 'string' },
          },
        },
      }),
    );
    expect(normalizeAsk(read.ask)).toMatchObject({ ok: true });
    expect(read.ask.questions[0]?.title?.startsWith('a'.repeat(MAX_QUESTION_TITLE_CHARS - 1))).toBe(
      true,
    );
  });

  it('sends a form outside the convention to the generic form kind', () => {
    const kind = classifyElicitation({
      mode: 'form',
      sessionId: 's',
      message: 'Your details',
      requestedSchema: {
        type: 'object',
        properties: {
          email: { type: 'string', format: 'email' },
          age: { type: 'integer', minimum: 0 },
          subscribe: { type: 'boolean' },
          colour: { type: 'string', enum: ['red', 'blue'] },
        },
        required: ['email', 'unknown'],
      },
    });
    expect(kind).toMatchObject({
      kind: 'form',
      message: 'Your details',
      schema: { required: ['email'] },
    });
  });

  it.each([
    ['a question without its custom box', { question_0: { type: 'string', enum: ['a', 'b'] } }],
    [
      'a question with one option',
      { question_0: { type: 'string', enum: ['a'] }, question_0_custom: { type: 'string' } },
    ],
  ])('reads %s as a generic form', (_name, properties) => {
    const kind = classifyElicitation({
      mode: 'form',
      sessionId: 's',
      message: 'm',
      requestedSchema: { type: 'object', properties },
    });
    expect(kind.kind).toBe('form');
  });

  it('refuses nested and empty forms and unknown modes', () => {
    const nested = classifyElicitation({
      mode: 'form',
      sessionId: 's',
      message: 'm',
      requestedSchema: { type: 'object', properties: { inner: { type: 'object' } } },
    });
    expect(nested.kind).toBe('unsupported');
    const empty = classifyElicitation({
      mode: 'form',
      sessionId: 's',
      message: 'm',
      requestedSchema: { type: 'object', properties: {} },
    });
    expect(empty.kind).toBe('unsupported');
    expect(classifyElicitation({ mode: '_future', sessionId: 's', message: 'm' }).kind).toBe(
      'unsupported',
    );
  });

  it('reads a URL elicitation', () => {
    expect(
      classifyElicitation({
        mode: 'url',
        sessionId: 's',
        message: 'Sign in to GitHub',
        url: 'https://github.com/login/oauth',
        elicitationId: 'mcp-oauth-1',
      }),
    ).toEqual({
      kind: 'url',
      message: 'Sign in to GitHub',
      url: 'https://github.com/login/oauth',
      elicitationId: 'mcp-oauth-1',
    });
  });
});

describe('questionsReply', () => {
  const read = questionsOf(classifyElicitation(claudeRequest()));

  it('answers in the shape Claude reads back: labels, arrays, custom text', () => {
    const reply = questionsReply(read.fields, {
      rejected: false,
      answers: [
        { question_id: 'question_0', selected_options: ['question_0_opt_2'], custom_text: '' },
        {
          question_id: 'question_1',
          selected_options: ['question_1_opt_1', 'question_1_opt_2'],
          custom_text: 'Types, too',
        },
        { question_id: 'question_2', selected_options: [], custom_text: ' Five ' },
      ],
    });
    expect(reply).toEqual({
      action: 'accept',
      content: {
        question_0: 'SQLite',
        question_1: ['Lint', 'Tests'],
        question_1_custom: 'Types, too',
        question_2_custom: 'Five',
      },
    });
    const applied = applyAskElicitationResponse(reply, { questions: QUESTIONS }, QUESTIONS);
    expect(applied).toEqual({
      action: 'answered',
      updatedInput: {
        questions: QUESTIONS,
        answers: {
          'Which database should the service use?': 'SQLite',
          'Which checks run on every push?': 'Lint, Tests, "Types, too"',
          'How many replicas?': 'Five',
        },
      },
    });
  });

  it('declines a rejection, which Claude reads as skipped', () => {
    const reply = questionsReply(read.fields, { rejected: true, answers: [] });
    expect(reply).toEqual({ action: 'decline' });
    expect(applyAskElicitationResponse(reply, {}, QUESTIONS)).toMatchObject({
      action: 'answered',
      updatedInput: { answers: {} },
    });
  });
});
