import { describe, expect, it } from 'vitest';
import { MAX_TEXT_ISSUES } from './limits.js';
import {
  answerText,
  decodeUtf8,
  isBlankText,
  optionLabelKey,
  storableJson,
  storableLabel,
  storableText,
  textIssues,
  textProblem,
} from './text.js';

describe('the text rules', () => {
  it('refuses NUL and unpaired surrogates, and only those', () => {
    expect(textProblem('a\u0000b')).toBe('must not contain NUL characters');
    for (const lone of ['\ud800', 'x\udfff', '\udc00\ud800', '\ud83e']) {
      expect(textProblem(lone)).toBe('must be well-formed Unicode (no unpaired surrogates)');
    }
    for (const fine of ['', '🦀', 'e\u0301', '日本語', 'שלום\u200f', '\u0001', '\ufffd']) {
      expect(textProblem(fine)).toBeUndefined();
    }
  });

  it('names every bad string in a body by its dotted path, keys included', () => {
    expect(
      textIssues({
        title: 'fine',
        answers: [{ custom_text: 'ok' }, { custom_text: 'a\u0000', selected_options: ['\ud800'] }],
        'key\u0000': 1,
      }),
    ).toEqual([
      // A key is reported when its object is reached, before the values inside.
      { path: 'key\u0000', message: 'must not contain NUL characters' },
      { path: 'answers.1.custom_text', message: 'must not contain NUL characters' },
      {
        path: 'answers.1.selected_options.0',
        message: 'must be well-formed Unicode (no unpaired surrogates)',
      },
    ]);
    expect(textIssues('\u0000')).toEqual([
      { path: '', message: 'must not contain NUL characters' },
    ]);
    expect(textIssues({ n: 1, b: true, z: null, s: 'ok' })).toEqual([]);
  });

  it('walks a deeply nested body without exhausting the stack, and stops at the cap', () => {
    let deep: unknown = '\u0000';
    for (let depth = 0; depth < 100_000; depth++) deep = [deep];
    expect(textIssues(deep)).toHaveLength(1);
    expect(textIssues(Array.from({ length: 500 }, () => '\u0000'))).toHaveLength(MAX_TEXT_ISSUES);
  });

  it('counts only whitespace and invisible characters as blank', () => {
    for (const blank of [
      '',
      ' \t\n',
      '\u3000\u00a0',
      '\u200b',
      '\u200c\u200d',
      '\u2060',
      '\ufeff',
      '\u00ad',
      '\u200e\u202e',
      '\u034f',
    ]) {
      expect(isBlankText(blank), JSON.stringify(blank)).toBe(true);
    }
    for (const shown of ['a', '\u200bx', '🏳️‍🌈', 'e\u0301', '.', '\ud800']) {
      expect(isBlankText(shown), JSON.stringify(shown)).toBe(false);
    }
    expect(answerText('  \u200b  ')).toBe('');
    expect(answerText('  zero\u200bwidth  ')).toBe('zero\u200bwidth');
  });

  it('reads option labels as a person tells them apart', () => {
    const same = (a: string, b: string) => optionLabelKey(a) === optionLabelKey(b);
    expect(same('main', 'main')).toBe(true);
    expect(same('Main', 'MAIN')).toBe(true);
    expect(same(' release  branch ', 'release\tbranch')).toBe(true);
    expect(same('ma\u200bin', 'main')).toBe(true);
    expect(same('caf\u00e9', 'cafe\u0301')).toBe(true);
    expect(same('a b', 'ab')).toBe(false);
    expect(same('main', 'mains')).toBe(false);
    // A bidi control is shown as a marker, so it tells labels apart.
    expect(same('main\u202e', 'main')).toBe(false);
  });

  it('makes text from sources it cannot refuse storable', () => {
    expect(storableText('a\u0000b\ud800c\n')).toBe('ab\ufffdc\n');
    expect(storableText('🦀 fine')).toBe('🦀 fine');
    const clean = { a: ['x'], n: 1 };
    expect(storableJson(clean)).toBe(clean);
    expect(storableJson({ 'k\u0000': ['\udfffx', { deep: 'y\u0000' }], n: 1, z: null })).toEqual({
      k: ['\ufffdx', { deep: 'y' }],
      n: 1,
      z: null,
    });
  });

  it('makes a label storable, on one line, without splitting a pair', () => {
    expect(storableLabel('claude\u0000code\ud800\n', 200)).toBe('claudecode\ufffd');
    expect(storableLabel('x🦀🦀', 2)).toBe('x🦀');
    expect(storableLabel('🦀'.repeat(300), 200)).toBe('🦀'.repeat(200));
  });

  it('decodes UTF-8 strictly', () => {
    expect(decodeUtf8(new Uint8Array([0x7b, 0x7d]))).toBe('{}');
    expect(decodeUtf8(new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d]))).toBe('{}');
    for (const broken of [[0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf0, 0x9f, 0xa6]]) {
      expect(decodeUtf8(new Uint8Array(broken))).toBeUndefined();
    }
  });

  it('decodes each body on its own: a cut-off sequence does not carry into the next', () => {
    // `e2 82` is the start of `€` (e2 82 ac); a decoder that kept it would finish it here.
    expect(decodeUtf8(new Uint8Array([0x61, 0xe2, 0x82]))).toBeUndefined();
    expect(decodeUtf8(new Uint8Array([0xac]))).toBeUndefined();
    expect(decodeUtf8(new Uint8Array([0xe2, 0x82, 0xac]))).toBe('€');
  });
});
