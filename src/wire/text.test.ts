import { describe, expect, it } from 'vitest';
import { MAX_TEXT_ISSUES } from './limits.js';
import {
  answerText,
  decodeUtf8,
  isBlankText,
  labelsReadingTheSame,
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
      // Drawn as nothing, though no property says so: the Braille blank, a null notehead.
      '\u2800',
      ' \u2800 ',
      '\u{1D159}',
      // Hangul fillers: letters with no ink.
      '\u3164',
      '\u115f\u1160',
      '\uffa0',
    ]) {
      expect(isBlankText(blank), JSON.stringify(blank)).toBe(true);
    }
    for (const shown of ['a', '\u200bx', '🏳️‍🌈', 'e\u0301', '.', '\ud800', '\u2800x', '\u2801']) {
      expect(isBlankText(shown), JSON.stringify(shown)).toBe(false);
    }
    expect(answerText('  \u200b  ')).toBe('');
    expect(answerText('  zero\u200bwidth  ')).toBe('zero\u200bwidth');
  });

  it('reads option labels as a person tells them apart', () => {
    const same = (a: string, b: string) => labelsReadingTheSame([a, b])[1] === 0;
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

  it('reads labels that look alike as the same: compatibility forms, overlays, other scripts', () => {
    const same = (a: string, b: string) => labelsReadingTheSame([a, b])[1] === 0;
    // Fullwidth, mathematical bold, a ligature: NFKC's compatibility forms.
    expect(same('Allow', '\uff21llow')).toBe(true);
    expect(same('Allow', '\u{1D400}llow')).toBe(true);
    expect(same('Confirm', 'Con\ufb01rm')).toBe(true);
    // A mark drawn through or around a letter leaves the letter to read.
    expect(same('Allow', 'Allow\u0336')).toBe(true);
    expect(same('Allow', 'A\u20ddllow')).toBe(true);
    // Cyrillic and Greek letters drawn as Latin ones, in either case and any mix.
    expect(same('Allow', '\u0410llow')).toBe(true);
    expect(same('Allow', '\u0430llow')).toBe(true);
    expect(same('ALLOW', '\u0430llow')).toBe(true);
    expect(same('Hello', '\u0397ello')).toBe(true);
    expect(same('vote', '\u03bdote')).toBe(true);
    expect(same('Copy', '\u0421\u043e\u0440\u0443')).toBe(true);
    // Both keys: Cyrillic Н looks like H only as a capital.
    expect(same('HET', '\u041d\u0435\u0442')).toBe(true);
    // The earliest label it reads as is the one named.
    expect(labelsReadingTheSame(['Deny', 'Allow', 'ALLOW', '\u0410llow'])).toEqual([
      undefined,
      undefined,
      1,
      1,
    ]);
  });

  it('tells apart labels in one script that differ by more than case, accents included', () => {
    const same = (a: string, b: string) => labelsReadingTheSame([a, b])[1] === 0;
    expect(same('\u0414\u0430', '\u041d\u0435\u0442')).toBe(false); // Да, Нет
    expect(same('\u041d\u0415\u0422', '\u043d\u0435\u0442')).toBe(true); // НЕТ, нет
    // нет is НЕТ ignoring case, and НЕТ is drawn as HET; Нет and Net differ in Н and N.
    expect(same('\u043d\u0435\u0442', 'het')).toBe(true);
    expect(same('\u041d\u0435\u0442', 'Net')).toBe(false);
    expect(same('\u041f\u043e\u043b', '\u043f\u043e\u043b')).toBe(true); // Пол, пол
    expect(same('\u0432\u0435\u0441', '\u0432\u0435\u0441\u044c')).toBe(false); // вес, весь
    expect(same('\u306f\u3044', '\u3044\u3044\u3048')).toBe(false); // はい, いいえ
    expect(same('\u662f', '\u5426')).toBe(false); // 是, 否
    expect(same('\u039d\u03b1\u03b9', '\u038c\u03c7\u03b9')).toBe(false); // Ναι, Όχι
    expect(same('\u039d\u0391\u0399', '\u03bd\u03b1\u03b9')).toBe(true); // ΝΑΙ, ναι
    // An accent makes another word, so it tells labels apart.
    expect(same('\u00c4ndern', 'Andern')).toBe(false);
    expect(same('r\u00e9sum\u00e9', 'resume')).toBe(false);
    expect(same('s\u00ed', 'si')).toBe(false);
    // Kazakh У and Ү are two letters, though both capitals look like Y.
    expect(same('\u0423\u043b', '\u04ae\u043b')).toBe(false);
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
