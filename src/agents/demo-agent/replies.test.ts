import { describe, expect, it } from 'vitest';
import { actionReply, chunkReply, permissionReply, plainReply } from './replies.js';

describe('demo agent replies', () => {
  it('quotes a plain prompt verbatim', () => {
    expect(plainReply('  two  spaces\nand a line ')).toBe('You said:   two  spaces\nand a line ');
  });

  it.each([
    ['You said: hello there, world'],
    ['x'],
    [''],
    ['nospaceatallinthisreply'],
    ['Answer to q1: "Generated"\nAnswer to q2: "Lint"'],
  ])('streams %j in chunks that join back exactly', (text) => {
    const chunks = chunkReply(text);
    expect(chunks.join('')).toBe(text);
    expect(chunks.length).toBeLessThanOrEqual(2);
  });

  it('splits a longer reply into a couple of chunks', () => {
    expect(chunkReply('You said: hello there, world')).toHaveLength(2);
  });

  it('reports the chosen permission option or the cancellation', () => {
    expect(permissionReply({ outcome: { outcome: 'selected', optionId: 'allow-once' } })).toBe(
      'Permission answer: "allow-once" (Allow once).',
    );
    expect(permissionReply({ outcome: { outcome: 'selected', optionId: 'other' } })).toBe(
      'Permission answer: "other".',
    );
    expect(permissionReply({ outcome: { outcome: 'cancelled' } })).toBe(
      'The permission request was cancelled.',
    );
  });

  it('reports an action request result', () => {
    expect(actionReply({ structuredContent: { status: 'done' } })).toBe(
      'Action request: {"status":"done"}',
    );
    expect(actionReply({ content: [{ type: 'text', text: 'queued' }] })).toBe(
      'Action request: queued',
    );
    expect(actionReply({ isError: true, content: [{ type: 'text', text: 'nope' }] })).toBe(
      'The action request failed: nope',
    );
  });
});
