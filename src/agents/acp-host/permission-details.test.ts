import { describe, expect, it } from 'vitest';
import { codePoints, MAX_CONSENT_DETAIL_CHARS, MAX_CONSENT_DETAILS } from '../../wire/index.js';
import { permissionDetails } from './permission-details.js';

const call = { toolCallId: 'call-1' };

describe('permissionDetails', () => {
  it('keeps the text and the diffs of the tool call, in order', () => {
    expect(
      permissionDetails({
        ...call,
        content: [
          { type: 'content', content: { type: 'text', text: 'npm run deploy' } },
          { type: 'diff', path: 'src/a.ts', oldText: 'let a = 1;', newText: 'let a = 2;' },
          { type: 'diff', path: 'src/new.ts', newText: 'export {};' },
          { type: 'terminal', terminalId: 'term-1' },
        ],
      }),
    ).toEqual([
      { type: 'text', text: 'npm run deploy' },
      { type: 'diff', path: 'src/a.ts', old_text: 'let a = 1;', new_text: 'let a = 2;' },
      { type: 'diff', path: 'src/new.ts', old_text: null, new_text: 'export {};' },
    ]);
  });

  it('reads a command from the raw input when the content says nothing, as a string or argv', () => {
    expect(permissionDetails({ ...call, rawInput: { command: 'rm -rf .cache' } })).toEqual([
      { type: 'text', text: 'rm -rf .cache' },
    ]);
    expect(permissionDetails({ ...call, rawInput: { command: ['git', 'push', '-f'] } })).toEqual([
      { type: 'text', text: 'git push -f' },
    ]);
    expect(permissionDetails({ ...call, rawInput: { path: '/etc' } })).toEqual([]);
    expect(permissionDetails(call)).toEqual([]);
  });

  it('cuts long text by code points and keeps at most the limit of pieces, storable', () => {
    const long = '😀'.repeat(MAX_CONSENT_DETAIL_CHARS + 10);
    const [first] = permissionDetails({
      ...call,
      content: [{ type: 'content', content: { type: 'text', text: long } }],
    });
    expect(first?.type === 'text' && codePoints(first.text)).toBe(MAX_CONSENT_DETAIL_CHARS);
    expect(first?.type === 'text' && first.text.endsWith('…')).toBe(true);

    const many = Array.from({ length: MAX_CONSENT_DETAILS + 3 }, (_, index) => ({
      type: 'content' as const,
      content: { type: 'text' as const, text: `step ${index}\u0000` },
    }));
    const kept = permissionDetails({ ...call, content: many });
    expect(kept).toHaveLength(MAX_CONSENT_DETAILS);
    expect(kept[0]).toEqual({ type: 'text', text: 'step 0' });
  });
});
