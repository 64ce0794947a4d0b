/** Which characters count as bidi controls, and how they are written out. */
import { describe, expect, it } from 'vitest';
import { showBidiControls, splitBidiControls } from '../../web/src/model/bidi.js';

describe('bidi controls', () => {
  it('splits out embeddings, overrides and isolates, one piece each, in order', () => {
    expect(splitBidiControls('a\u202Eb\u2066\u2069c')).toEqual([
      { kind: 'text', text: 'a' },
      { kind: 'control', code: 'U+202E' },
      { kind: 'text', text: 'b' },
      { kind: 'control', code: 'U+2066' },
      { kind: 'control', code: 'U+2069' },
      { kind: 'text', text: 'c' },
    ]);
    for (const code of [0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069]) {
      expect(showBidiControls(String.fromCodePoint(code))).toBe(
        `⟨U+${code.toString(16).toUpperCase()}⟩`,
      );
    }
  });

  it('leaves ordinary text, right-to-left letters, marks and astral characters as they are', () => {
    for (const text of ['', 'plain', 'שלום עולם', 'abc\u200Fdef\u200E', '🚀 deploy']) {
      expect(showBidiControls(text)).toBe(text);
      expect(splitBidiControls(text).every((piece) => piece.kind === 'text')).toBe(true);
    }
  });
});
