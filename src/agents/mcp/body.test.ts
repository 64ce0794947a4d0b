import { describe, expect, it } from 'vitest';
import { callsTool, capabilitiesNestDeeper } from './body.js';

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

describe('capabilitiesNestDeeper', () => {
  /** An `initialize` whose capabilities are `levels` objects (or arrays) deep. */
  const initialize = (levels: number, wrap = (inner: unknown): unknown => ({ x: inner })) => {
    let capabilities: unknown = {};
    for (let level = 1; level < levels; level++) capabilities = wrap(capabilities);
    return {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities,
        clientInfo: { name: 'c', version: '1' },
      },
    };
  };

  it('counts objects and arrays alike, the limit itself allowed', () => {
    expect(capabilitiesNestDeeper(initialize(4), 4)).toBe(false);
    expect(capabilitiesNestDeeper(initialize(5), 4)).toBe(true);
    // {x: [{x: [{}]}]}: five levels, two of them arrays.
    const arrays = (inner: unknown) => ({ x: [inner] });
    expect(capabilitiesNestDeeper(initialize(3, arrays), 5)).toBe(false);
    expect(capabilitiesNestDeeper(initialize(3, arrays), 4)).toBe(true);
    expect(capabilitiesNestDeeper([initialize(5)], 4)).toBe(true);
  });

  it('walks a hundred thousand levels without recursion, and ignores what is no initialize', () => {
    expect(capabilitiesNestDeeper(initialize(100_000), 64)).toBe(true);
    expect(capabilitiesNestDeeper({ ...initialize(100), method: 'ping' }, 4)).toBe(false);
  });
});
