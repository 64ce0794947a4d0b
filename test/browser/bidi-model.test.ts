/**
 * Which characters count as bidi controls, and how they are written out: one
 * rule (`src/wire/text.ts`) for the web app and the server's notices.
 */
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
    const codes = [0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069];
    for (const code of [...codes, 0x200e, 0x200f, 0x061c]) {
      expect(showBidiControls(String.fromCodePoint(code))).toBe(
        `⟨U+${code.toString(16).toUpperCase().padStart(4, '0')}⟩`,
      );
    }
  });

  it('shows marks too: they move digits and punctuation', () => {
    expect(showBidiControls('10\u200F.5')).toBe('10⟨U+200F⟩.5');
    expect(showBidiControls('abc\u200Fdef\u200E')).toBe('abc⟨U+200F⟩def⟨U+200E⟩');
    expect(showBidiControls('\u061C1-2')).toBe('⟨U+061C⟩1-2');
  });

  it('leaves ordinary text, right-to-left letters, joiners and astral characters as they are', () => {
    for (const text of ['', 'plain', 'שלום עולם', 'عربي\u200Dنص', '🚀 deploy']) {
      expect(showBidiControls(text)).toBe(text);
      expect(splitBidiControls(text).every((piece) => piece.kind === 'text')).toBe(true);
    }
  });
});
