/**
 * A tab's key store (sessionStorage) belongs to the person signed in on it:
 * when the browser signs in as someone else and this tab is reloaded (or
 * opens their sign-in link), what the last person left that is kept by
 * session or pending ID (composer drafts, their notes, admission keys) goes,
 * so nobody sends another's unsent text as their own, or has a send answered
 * with the message another person's key already admitted.
 */
import { describe, expect, it } from 'vitest';
import {
  draftNoteOf,
  draftOf,
  keepDraft,
  keepUnsentFirstInstruction,
} from '../../web/src/model/composer-draft.js';
import {
  admissionKeyFor,
  claimKeyStore,
  memoryKeyStore,
  storageKeyStore,
  type KeyStore,
} from '../../web/src/model/late-answer.js';
import {
  keepQuestionDraft,
  questionDraftKey,
  readQuestionDraft,
} from '../../web/src/model/question-draft.js';

/** What Alice leaves in the tab: a draft, a first instruction the server never took, a key in use. */
function aliceWasHere(store: KeyStore): { admission: string } {
  claimKeyStore(store, 'alice');
  keepDraft(store, 's1', 'drop the staging table');
  keepUnsentFirstInstruction(store, 's2', 'migrate the billing schema');
  const admission = admissionKeyFor(store, 's1', () => 'r1');
  keepQuestionDraft(store, questionDraftKey('alice', 'p1'), {
    answers: new Map(),
    drafts: new Map([['q1', 'half an answer']]),
    activeIndex: 0,
  });
  store.setItem('clarion.respond_deadline_ms', '500');
  return { admission };
}

describe('claimKeyStore', () => {
  it('leaves the same person everything they kept', () => {
    const store = memoryKeyStore();
    const { admission } = aliceWasHere(store);
    claimKeyStore(store, 'alice');
    expect(draftOf(store, 's1')).toBe('drop the staging table');
    expect(draftNoteOf(store, 's2')).toBeDefined();
    expect(admissionKeyFor(store, 's1', () => 'r2')).toBe(admission);
  });

  it('takes another person’s drafts and admission keys out of the tab, nothing else', () => {
    const store = memoryKeyStore();
    const { admission } = aliceWasHere(store);
    claimKeyStore(store, 'bob');
    expect(draftOf(store, 's1')).toBe('');
    expect(draftOf(store, 's2')).toBe('');
    expect(draftNoteOf(store, 's2')).toBeUndefined();
    expect(admissionKeyFor(store, 's1', () => 'r2')).not.toBe(admission);
    // Kept under Alice's own ID: never shown to Bob, and hers again when she is back.
    expect(readQuestionDraft(store, questionDraftKey('alice', 'p1'))).toBeDefined();
    expect(store.getItem('clarion.respond_deadline_ms')).toBe('500');
  });

  it('works on the browser’s Storage, whose keys it lists by index', () => {
    const values = new Map<string, string>();
    const storage = {
      get length() {
        return values.size;
      },
      key: (index: number) => [...values.keys()][index] ?? null,
      getItem: (key: string) => values.get(key) ?? null,
      setItem: (key: string, value: string) => {
        values.set(key, value);
      },
      removeItem: (key: string) => {
        values.delete(key);
      },
    };
    const store = storageKeyStore(storage);
    aliceWasHere(store);
    claimKeyStore(store, 'bob');
    expect(store.keys().sort()).toEqual([
      'clarion.key-owner',
      'clarion.question-draft.alice.p1',
      'clarion.respond_deadline_ms',
    ]);
  });
});
