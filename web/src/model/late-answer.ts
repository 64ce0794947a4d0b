/**
 * Late answers (DESIGN §5.2): an affirmative answer to a bundle that is no
 * longer active becomes an ordinary user message. This module formats it as
 * plain text (never a privileged block) and owns the stable admission key,
 * which survives retries and remounts through a `KeyStore` (sessionStorage
 * in the browser).
 */
import type { Answer, QuestionOption } from './types.js';

/** What the hook captures before submitting, so nothing depends on the live bundle afterwards. */
export interface AnswerSnapshot {
  pendingId: string;
  taskId: string;
  sessionId: string;
  questions: { question_id: string; prompt: string; options: QuestionOption[] }[];
  answers: Answer[];
}

export function formatLateAnswer(snapshot: AnswerSnapshot): string {
  const blocks = snapshot.questions.map((question) => {
    const answer = snapshot.answers.find((item) => item.question_id === question.question_id);
    const labels = (answer?.selected_options ?? []).map(
      (id) => question.options.find((option) => option.option_id === id)?.label ?? id,
    );
    const custom = answer?.custom_text.trim() ?? '';
    const parts = [...labels, ...(custom === '' ? [] : [custom])];
    return `${question.prompt}\n${parts.length > 0 ? parts.join('; ') : '—'}`;
  });
  return blocks.join('\n\n');
}

export interface KeyStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** A map-backed store for tests and for browsers without sessionStorage. */
export function memoryKeyStore(): KeyStore {
  const values = new Map<string, string>();
  return {
    getItem: (key) => values.get(key) ?? null,
    setItem: (key, value) => values.set(key, value),
    removeItem: (key) => values.delete(key),
  };
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
