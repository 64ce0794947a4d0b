/**
 * `model/question-draft.ts`: one entry per person and pending ID, read back only when
 * well-formed; `model/question-answers.ts`: a draft's answers by the agent's question IDs.
 */
import { describe, expect, it } from 'vitest';
import { memoryKeyStore } from '../../web/src/model/late-answer.js';
import {
  answeredCount,
  NO_ANSWERS,
  withCustomText,
  withOptionPicked,
} from '../../web/src/model/question-answers.js';
import {
  dropQuestionDraft,
  keepQuestionDraft,
  questionDraftKey,
  readQuestionDraft,
  type KeptQuestionDraft,
} from '../../web/src/model/question-draft.js';

/** `DRAFT` as it is stored. */
const STORED = {
  answers: { q1: { question_id: 'q1', selected_options: ['a'], custom_text: '' } },
  drafts: { q2: 'half typed' },
  activeIndex: 1,
};

const DRAFT: KeptQuestionDraft = {
  answers: new Map([['q1', { question_id: 'q1', selected_options: ['a'], custom_text: '' }]]),
  drafts: new Map([['q2', 'half typed']]),
  activeIndex: 1,
};

describe('a kept question draft', () => {
  it('is kept per person and pending ID, and read back as written', () => {
    const store = memoryKeyStore();
    const mine = questionDraftKey('alice', 'p1');
    keepQuestionDraft(store, mine, DRAFT);
    expect(readQuestionDraft(store, mine)).toEqual(DRAFT);
    // Stored as before answers were Maps: a draft kept by the page before a reload reads back.
    expect(JSON.parse(store.getItem(mine) ?? '')).toEqual(STORED);
    expect(readQuestionDraft(store, questionDraftKey('bob', 'p1'))).toBeUndefined();
    expect(readQuestionDraft(store, questionDraftKey('alice', 'p2'))).toBeUndefined();
    dropQuestionDraft(store, mine);
    expect(store.getItem(mine)).toBeNull();
  });

  it('a draft with nothing picked or typed removes the entry, whatever step it is on', () => {
    const store = memoryKeyStore();
    const key = questionDraftKey('alice', 'p1');
    keepQuestionDraft(store, key, DRAFT);
    keepQuestionDraft(store, key, {
      answers: new Map(),
      drafts: new Map([['q2', '']]),
      activeIndex: 2,
    });
    expect(store.getItem(key)).toBeNull();
  });

  it('reads anything malformed as no draft', () => {
    const store = memoryKeyStore();
    const key = questionDraftKey('alice', 'p1');
    for (const value of [
      'not json',
      'null',
      '[]',
      JSON.stringify({ ...STORED, activeIndex: -1 }),
      JSON.stringify({ ...STORED, drafts: { q2: 3 } }),
      JSON.stringify({
        ...STORED,
        answers: { q1: { question_id: 'q9', selected_options: [], custom_text: '' } },
      }),
      JSON.stringify({
        ...STORED,
        answers: { q1: { question_id: 'q1', selected_options: [1], custom_text: '' } },
      }),
    ]) {
      store.setItem(key, value);
      expect(readQuestionDraft(store, key), value).toBeUndefined();
    }
  });
});

describe('a draft for questions the agent called __proto__ and constructor', () => {
  const questions = [
    { question_id: '__proto__', multi_select: false },
    { question_id: 'constructor', multi_select: true },
  ];

  it('answers neither until the person does, then each as given, kept and read back', () => {
    expect(answeredCount(questions, NO_ANSWERS.answers)).toBe(0);
    const [, constructor] = questions;
    if (!constructor) throw new Error('two questions');
    const typed = withCustomText(NO_ANSWERS, '__proto__', 'Ship it');
    const draft = { ...typed, answers: withOptionPicked(typed.answers, constructor, 'a') };
    expect(answeredCount(questions, draft.answers)).toBe(2);

    const store = memoryKeyStore();
    const key = questionDraftKey('alice', 'p1');
    keepQuestionDraft(store, key, { ...draft, activeIndex: 1 });
    const read = readQuestionDraft(store, key);
    expect(read?.drafts.get('__proto__')).toBe('Ship it');
    expect(read?.answers.get('__proto__')?.custom_text).toBe('Ship it');
    expect(read?.answers.get('constructor')?.selected_options).toEqual(['a']);

    // Text taken back: that question is unanswered again, the other stays.
    const erased = withCustomText(draft, '__proto__', '');
    expect(answeredCount(questions, erased.answers)).toBe(1);
    expect(erased.drafts.get('__proto__')).toBe('');
  });
});
