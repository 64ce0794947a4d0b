/** `model/question-draft.ts`: one entry per person and pending ID, read back only when well-formed. */
import { describe, expect, it } from 'vitest';
import { memoryKeyStore } from '../../web/src/model/late-answer.js';
import {
  dropQuestionDraft,
  keepQuestionDraft,
  questionDraftKey,
  readQuestionDraft,
  type KeptQuestionDraft,
} from '../../web/src/model/question-draft.js';

const DRAFT: KeptQuestionDraft = {
  answers: { q1: { question_id: 'q1', selected_options: ['a'], custom_text: '' } },
  drafts: { q2: 'half typed' },
  activeIndex: 1,
};

describe('a kept question draft', () => {
  it('is kept per person and pending ID, and read back as written', () => {
    const store = memoryKeyStore();
    const mine = questionDraftKey('alice', 'p1');
    keepQuestionDraft(store, mine, DRAFT);
    expect(readQuestionDraft(store, mine)).toEqual(DRAFT);
    expect(readQuestionDraft(store, questionDraftKey('bob', 'p1'))).toBeUndefined();
    expect(readQuestionDraft(store, questionDraftKey('alice', 'p2'))).toBeUndefined();
    dropQuestionDraft(store, mine);
    expect(store.getItem(mine)).toBeNull();
  });

  it('a draft with nothing picked or typed removes the entry, whatever step it is on', () => {
    const store = memoryKeyStore();
    const key = questionDraftKey('alice', 'p1');
    keepQuestionDraft(store, key, DRAFT);
    keepQuestionDraft(store, key, { answers: {}, drafts: { q2: '' }, activeIndex: 2 });
    expect(store.getItem(key)).toBeNull();
  });

  it('reads anything malformed as no draft', () => {
    const store = memoryKeyStore();
    const key = questionDraftKey('alice', 'p1');
    for (const value of [
      'not json',
      'null',
      '[]',
      JSON.stringify({ ...DRAFT, activeIndex: -1 }),
      JSON.stringify({ ...DRAFT, drafts: { q2: 3 } }),
      JSON.stringify({
        ...DRAFT,
        answers: { q1: { question_id: 'q9', selected_options: [], custom_text: '' } },
      }),
      JSON.stringify({
        ...DRAFT,
        answers: { q1: { question_id: 'q1', selected_options: [1], custom_text: '' } },
      }),
    ]) {
      store.setItem(key, value);
      expect(readQuestionDraft(store, key), value).toBeUndefined();
    }
  });
});
