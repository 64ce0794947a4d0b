import { describe, expect, it } from 'vitest';
import {
  decisionPayload,
  OPEN_MESSAGE_EXTERNAL,
  OPEN_MESSAGE_SESSION,
  openPayload,
  toolFailure,
  toolResult,
} from './results.js';
import { failure } from '../../wire/index.js';

const QUESTIONS = [
  {
    id: 'q1',
    options: [
      { option_id: 'a', label: 'Alpha', description: '' },
      { option_id: 'b', label: 'Beta', description: '' },
    ],
  },
  { id: 'q2', options: [{ option_id: 'c', label: 'Gamma', description: '' }] },
];

const response = {
  pending_id: 'p1',
  rejected: false,
  reject_reason: '',
  responded_at: '2026-01-01T00:00:00.000000000Z',
  responded_by: null,
  answers: [
    { question_id: 'q1', selected_options: ['a', 'b'], custom_text: '' },
    { question_id: 'q2', selected_options: ['gone'], custom_text: 'typed' },
  ],
};

describe('MCP tool results', () => {
  it('keys answers by question and gives every selected option its label', () => {
    expect(decisionPayload(response, QUESTIONS)).toEqual({
      status: 'answered',
      pending_id: 'p1',
      answers: {
        q1: {
          selected: [
            { id: 'a', label: 'Alpha' },
            { id: 'b', label: 'Beta' },
          ],
          custom_text: '',
        },
        // An option the question no longer has keeps its ID as the label.
        q2: { selected: [{ id: 'gone', label: 'gone' }], custom_text: 'typed' },
      },
    });
  });

  it('keeps the answer to a question whose ID is a name every object has', () => {
    // Question IDs are the agent's to choose, and `__proto__` or `constructor` are valid ones.
    const questions = ['__proto__', 'constructor'].map((id) => ({
      id,
      options: [{ option_id: 'a', label: 'Alpha', description: '' }],
    }));
    const answers = questions.map(({ id }) => ({
      question_id: id,
      selected_options: ['a'],
      custom_text: id,
    }));
    const payload = decisionPayload({ ...response, answers }, questions);
    const sent = JSON.parse(JSON.stringify(toolResult(payload).structuredContent)) as {
      answers: object;
    };
    expect(Object.entries(sent.answers)).toEqual(
      questions.map(({ id }) => [id, { selected: [{ id: 'a', label: 'Alpha' }], custom_text: id }]),
    );
  });

  it('turns a rejection into a skip with its reason', () => {
    const rejected = { ...response, rejected: true, reject_reason: 'later', answers: [] };
    expect(decisionPayload(rejected, QUESTIONS)).toEqual({
      status: 'skipped',
      pending_id: 'p1',
      reason: 'later',
    });
  });

  it('tells a session agent and an external agent different ways to get the answer', () => {
    expect(openPayload('p1', false).message).toBe(OPEN_MESSAGE_SESSION);
    expect(openPayload('p1', true).message).toBe(OPEN_MESSAGE_EXTERNAL);
    expect(OPEN_MESSAGE_EXTERNAL).toContain('wait_for_answer');
  });

  it('carries the same JSON as structured content and text', () => {
    const result = toolResult({ status: 'open', pending_id: 'p1' });
    expect(result.structuredContent).toEqual({ status: 'open', pending_id: 'p1' });
    expect(result.content).toEqual([{ type: 'text', text: '{"status":"open","pending_id":"p1"}' }]);
    expect(result.isError).toBeUndefined();
  });

  it('lists issues in a tool error, one per line', () => {
    const result = toolFailure(
      failure('invalid_request', 'invalid questions', [
        { path: 'questions.0', message: 'bad' },
        { path: '', message: 'worse' },
      ]),
    );
    expect(result).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'invalid questions\n- questions.0: bad\n- (input): worse' }],
      structuredContent: {
        error: 'invalid questions',
        code: 'invalid_request',
        issues: [
          { path: 'questions.0', message: 'bad' },
          { path: '', message: 'worse' },
        ],
      },
    });
    expect(toolFailure(failure('not_found', 'gone')).structuredContent).toEqual({
      error: 'gone',
      code: 'not_found',
    });
  });
});
