import { describe, expect, it } from 'vitest';
import { consentOptionsReadingTheSame, type ConsentKindWord } from './consent-words.js';

const twins = (...options: [ConsentKindWord, string][]) =>
  consentOptionsReadingTheSame(options.map(([kind, label]) => ({ kind, label })));

describe('consent options a person reads as one choice', () => {
  it('are of one kind with labels that read the same, or that both say only the kind’s words', () => {
    expect(
      twins(
        ['allow_once', 'Allow'],
        ['allow_once', 'Allow'],
        ['allow_once', 'ALLOW'],
        ['allow_once', 'Allow once'],
        ['allow_once', '\u0410llow'],
        ['allow_once', 'Allow for this file'],
        ['reject_once', 'Reject'],
        ['reject_once', 'reject  once'],
      ),
    ).toEqual([undefined, 0, 0, 0, 0, undefined, undefined, 6]);
  });

  it('never are of different kinds, whatever their labels say', () => {
    expect(
      twins(
        ['allow_once', 'Allow'],
        ['allow_always', 'Allow'],
        ['reject_once', 'Allow'],
        ['reject_always', 'Allow'],
      ),
    ).toEqual([undefined, undefined, undefined, undefined]);
  });
});
