/**
 * Late answers (DESIGN §5.2): an affirmative answer to a bundle that is no
 * longer active becomes an ordinary user message. This module formats it as
 * plain text (never a privileged block) and owns the stable admission key,
 * which survives retries and remounts through a `KeyStore` (sessionStorage
 * in the browser).
 */
import { formatAnswerAsMessage } from '../../../src/wire/unconfirmed-delivery.js';
import { orderedQuestions, type BundleState } from './read-model.js';
import type { Answer, QuestionOption } from './types.js';

/** What the hook captures before submitting, so nothing depends on the live bundle afterwards. */
export interface AnswerSnapshot {
  pendingId: string;
  taskId: string;
  sessionId: string;
  questions: { question_id: string; prompt: string; options: QuestionOption[] }[];
  answers: Answer[];
}

/** A snapshot plus the bundle it was taken from, so an outcome can still show its questions. */
export type CapturedAnswers = AnswerSnapshot & { bundle: BundleState };

/** Captures `bundle` and the chosen answers, in question order; an unanswered question gets an empty answer. */
export function captureAnswers(
  bundle: BundleState,
  chosen: ReadonlyMap<string, Answer>,
): CapturedAnswers {
  const ordered = orderedQuestions(bundle);
  return {
    bundle,
    pendingId: bundle.pending_id,
    taskId: bundle.task_id,
    sessionId: bundle.session_id,
    questions: ordered.map((q) => ({
      question_id: q.question_id,
      prompt: q.prompt,
      options: q.options,
    })),
    answers: ordered.map(
      (q) =>
        chosen.get(q.question_id) ?? {
          question_id: q.question_id,
          selected_options: [],
          custom_text: '',
        },
    ),
  };
}

/**
 * The key-store scope of a bundle's late answer. The overlay and the
 * transcript share it, so an unresolved attempt from either one is
 * reconciled by the same admission key.
 */
export function lateAnswerScope(pendingId: string): string {
  return `late:${pendingId}`;
}

export function formatLateAnswer(snapshot: AnswerSnapshot): string {
  return formatAnswerAsMessage(snapshot.questions, snapshot.answers);
}

export interface KeyStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
  /** Every key it holds now. */
  keys(): string[];
}

/** A map-backed store for tests and for browsers without sessionStorage. */
export function memoryKeyStore(): KeyStore {
  const values = new Map<string, string>();
  return {
    getItem: (key) => values.get(key) ?? null,
    setItem: (key, value) => values.set(key, value),
    removeItem: (key) => values.delete(key),
    keys: () => [...values.keys()],
  };
}

/** The part of the browser's `Storage` (sessionStorage, localStorage) a key store uses. */
interface WebStorage {
  readonly length: number;
  key(index: number): string | null;
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** The browser's `Storage` as a key store. */
export function storageKeyStore(storage: WebStorage): KeyStore {
  return {
    getItem: (key) => storage.getItem(key),
    setItem: (key, value) => {
      storage.setItem(key, value);
    },
    removeItem: (key) => {
      storage.removeItem(key);
    },
    keys: () =>
      Array.from({ length: storage.length }, (_, index) => storage.key(index)).filter(
        (key): key is string => key !== null,
      ),
  };
}

const KEY_OWNER = 'clarion.key-owner';

/**
 * What a person left in a tab and the next one must not get: composer drafts
 * (`composer-draft.ts`) and admission keys (`admissionKeyFor`), which are
 * kept by session or pending ID, not by person. Question drafts name their
 * person in their key already.
 */
const PERSONAL_PREFIXES = ['clarion.draft.', 'clarion.draft-note.', 'clarion.admission.'];

/**
 * Makes the tab's store `userId`'s: when another person used it last (the
 * browser signed in as someone else since, and this tab was reloaded or
 * opened their link), their drafts and admission keys go, so nobody sends
 * another's unsent text as their own or has it answered with another's
 * message.
 */
export function claimKeyStore(store: KeyStore, userId: string): void {
  const owner = store.getItem(KEY_OWNER);
  if (owner === userId) return;
  if (owner !== null) {
    for (const key of store.keys()) {
      if (PERSONAL_PREFIXES.some((prefix) => key.startsWith(prefix))) store.removeItem(key);
    }
  }
  store.setItem(KEY_OWNER, userId);
}

export function randomSuffix(): string {
  return globalThis.crypto.randomUUID().replaceAll('-', '').slice(0, 12);
}

/**
 * The admission key for `scope` (a pending ID, or a composer's session):
 * created once, then the same until `releaseAdmissionKey`.
 */
export function admissionKeyFor(store: KeyStore, scope: string, random = randomSuffix): string {
  const storageKey = `clarion.admission.${scope}`;
  const existing = store.getItem(storageKey);
  if (existing) return existing;
  const key = `${scope.slice(0, 80)}:${random()}`;
  store.setItem(storageKey, key);
  return key;
}

export function releaseAdmissionKey(store: KeyStore, scope: string): void {
  store.removeItem(`clarion.admission.${scope}`);
}
