import { describe, expect, it } from 'vitest';
import { callsTool } from './body.js';

const call = (name: unknown) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name } });

describe('callsTool', () => {
  it('finds the tool in one message or any of a batch', () => {
    expect(callsTool(call('answer_question'), 'answer_question')).toBe(true);
    expect(callsTool([call('ask_user_question'), call('answer_question')], 'answer_question')).toBe(
      true,
    );
  });

  it('is false for other tools, other methods and what is not JSON-RPC', () => {
    expect(callsTool(call('ask_user_question'), 'answer_question')).toBe(false);
    expect(
      callsTool({ method: 'tools/list', params: { name: 'answer_question' } }, 'answer_question'),
    ).toBe(false);
    for (const json of [
      undefined,
      null,
      'answer_question',
      3,
      [],
      [null],
      { method: 'tools/call' },
    ]) {
      expect(callsTool(json, 'answer_question')).toBe(false);
    }
  });
});
