import { describe, expect, it } from 'vitest';
import { cutOffToolCallMetadata, toolCallStateOf } from './tool-calls.js';

describe('a tool call’s state as a person reads it', () => {
  it('reads a call its turn’s end cut off as stopped, and one its agent failed as failed', () => {
    const running = { toolCallId: 'c1', status: 'in_progress', kind: 'other' };
    expect(toolCallStateOf(cutOffToolCallMetadata(running))).toBe('stopped');
    expect(toolCallStateOf({ toolCallId: 'c1', status: 'failed' })).toBe('failed');
    // As every closed row was written before this module named the mark.
    expect(toolCallStateOf({ toolCallId: 'c1', status: 'failed', interrupted: true })).toBe(
      'stopped',
    );
  });

  it('keeps failed for every other reader, and the agent’s own fields', () => {
    expect(cutOffToolCallMetadata({ toolCallId: 'c1', status: 'pending', kind: 'edit' })).toEqual({
      toolCallId: 'c1',
      status: 'failed',
      kind: 'edit',
      interrupted: true,
    });
  });

  it('reads the status the agent reported last, and nothing for one ACP does not know', () => {
    for (const status of ['pending', 'in_progress', 'completed'] as const) {
      expect(toolCallStateOf({ status })).toBe(status);
      // The mark tells only why a call failed: any other status the agent reported stands.
      expect(toolCallStateOf({ status, interrupted: true })).toBe(status);
    }
    expect(toolCallStateOf({ status: 'stopped' })).toBeNull();
    expect(toolCallStateOf({ status: 'failed', interrupted: 'yes' })).toBe('failed');
    expect(toolCallStateOf({})).toBeNull();
  });
});
