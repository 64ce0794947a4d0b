import { describe, expect, it } from 'vitest';
import {
  CONTINUE_LATER_REPLY,
  formatAskReply,
  interpretAskResult,
  SKIPPED_REPLY,
} from './ask-result.js';

const answered = {
  status: 'answered',
  answers: {
    q2: {
      selected: [
        { id: 'lint', label: 'Lint' },
        { id: 'tests', label: 'Tests' },
      ],
      custom_text: 'and e2e',
    },
    q1: { selected: [{ id: 'generated', label: 'Generated' }], custom_text: '' },
    q3: { selected: [], custom_text: 'only "Node 22", please' },
  },
};

describe('ask_user_question results', () => {
  it('reads structuredContent first', () => {
    const outcome = interpretAskResult({
      structuredContent: answered,
      content: [{ type: 'text', text: '{"status":"skipped","reason":"no"}' }],
    });
    expect(outcome.status).toBe('answered');
  });

  it('falls back to the JSON in the text content', () => {
    expect(
      interpretAskResult({ content: [{ type: 'text', text: JSON.stringify(answered) }] }).status,
    ).toBe('answered');
    expect(
      interpretAskResult({
        content: [
          { type: 'text', text: '{"status":"open","pending_id":"p1","message":"still open"}' },
        ],
      }),
    ).toEqual({ status: 'open', pendingId: 'p1', message: 'still open' });
  });

  it('reports errors and unreadable results', () => {
    expect(
      interpretAskResult({ isError: true, content: [{ type: 'text', text: 'bad input' }] }),
    ).toEqual({
      status: 'error',
      message: 'bad input',
    });
    expect(interpretAskResult({ content: [{ type: 'text', text: 'prose' }] }).status).toBe('error');
    expect(interpretAskResult({ structuredContent: { status: 'weird' } }).status).toBe('error');
  });

  it('quotes every label and custom text verbatim, in question order', () => {
    const reply = formatAskReply(interpretAskResult({ structuredContent: answered }), [
      'q1',
      'q2',
      'q3',
    ]);
    expect(reply).toBe(
      [
        'Answer to q1: "Generated"',
        'Answer to q2: "Lint", "Tests" and wrote "and e2e"',
        'Answer to q3: wrote "only "Node 22", please"',
      ].join('\n'),
    );
  });

  it('still shows answers to questions it did not expect', () => {
    const reply = formatAskReply(interpretAskResult({ structuredContent: answered }), ['q1']);
    expect(reply.split('\n').map((line) => line.slice(0, 12))).toEqual([
      'Answer to q1',
      'Answer to q2',
      'Answer to q3',
    ]);
  });

  it('words skipped and open results', () => {
    expect(
      formatAskReply(
        interpretAskResult({ structuredContent: { status: 'skipped', reason: '' } }),
        [],
      ),
    ).toBe(SKIPPED_REPLY);
    expect(
      formatAskReply(
        interpretAskResult({ structuredContent: { status: 'skipped', reason: 'not now' } }),
        [],
      ),
    ).toBe(`${SKIPPED_REPLY} Reason: "not now"`);
    expect(
      formatAskReply(
        interpretAskResult({
          structuredContent: { status: 'open', pending_id: 'p', message: 'm' },
        }),
        ['q1'],
      ),
    ).toBe(CONTINUE_LATER_REPLY);
  });

  it('never says a question it asked could not be asked', () => {
    const failed = (code: string, text: string) =>
      formatAskReply(
        interpretAskResult({
          isError: true,
          content: [{ type: 'text', text }],
          structuredContent: { error: text, code },
        }),
        ['q1'],
      );
    expect(failed('not_active', 'closed')).toBe(
      'The question is no longer open, so I stop waiting for it: closed',
    );
    expect(failed('unauthorized', 'revoked')).toBe('I can no longer wait for your answer: revoked');
    expect(failed('invalid_request', 'bad input')).toBe(
      'The question could not be asked: bad input',
    );
  });
});
