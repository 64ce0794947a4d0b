/**
 * `useClarificationDraft`: the answers being composed for one bundle, shared
 * by the live overlay and the transcript's "answer in a new message" form.
 *
 * Owns the picked options, the custom-text drafts and the step. The draft
 * belongs to one pending ID: when the bundle changes, it starts empty (no
 * effect needed; data for another ID is simply not read). What a complete
 * draft means is the caller's `onComplete`: a respond call or a message.
 * While `locked` (a request in flight) nothing can change.
 *
 * With `keep`, a live question's draft outlives the component: it is kept
 * per person and pending ID (`model/question-draft.ts`), read back when the
 * question is opened again (after the inbox, or a reload), and dropped once
 * the model says the question was settled, by this person or anyone else.
 */
import { useCallback, useEffect, useMemo, useState, useSyncExternalStore } from 'react';
import type { KeyStore } from '../model/late-answer.js';
import {
  dropQuestionDraft,
  keepQuestionDraft,
  questionDraftKey,
  readQuestionDraft,
} from '../model/question-draft.js';
import {
  orderedQuestions,
  type BundleQuestion,
  type BundleState,
  type ModelState,
  type ReadModel,
} from '../model/read-model.js';
import {
  answeredCount as countAnswered,
  isAnswered,
  NO_ANSWERS,
  withCustomText,
  withOptionPicked,
  type DraftAnswers,
} from '../model/question-answers.js';
import type { Answer } from '../model/types.js';
import { MAX_ANSWER_TEXT_CODE_POINTS } from '../../../src/wire/limits.js';
import { codePoints } from '../../../src/wire/text.js';

/** The server's cap on custom text, in Unicode code points (not UTF-16 units). */
export const MAX_CUSTOM_CODE_POINTS = MAX_ANSWER_TEXT_CODE_POINTS;
export const codePointLength = codePoints;

export interface ClarificationDraft {
  questions: BundleQuestion[];
  activeIndex: number;
  setActiveIndex: (index: number) => void;
  /** By question ID: a Map, since the agent chose the IDs (`model/question-answers.ts`). */
  answers: ReadonlyMap<string, Answer>;
  drafts: ReadonlyMap<string, string>;
  answeredCount: number;
  allAnswered: boolean;
  pickOption: (questionId: string, optionId: string) => void;
  setCustomText: (questionId: string, text: string) => void;
  /** Enter (or Send) in a custom answer: the next step, or `onComplete` on the last. */
  commitCustom: (questionId: string) => void;
  /** `onComplete` with the draft, when every question is answered. */
  submit: () => void;
}

/** How a draft was completed: a single tap on a one-question bundle, or an explicit submit. */
export type CompletedVia = 'tap' | 'submit';

export interface DraftOptions {
  locked: boolean;
  /** A single-choice pick on a one-question bundle completes it at once. */
  autoSubmit: boolean;
  /** The step to start on, e.g. the question whose transcript row was used. */
  initialIndex?: number;
  /** Where to keep the draft across navigation and reloads, until the question is settled. */
  keep?: DraftKeeping;
  onComplete: (answers: ReadonlyMap<string, Answer>, via: CompletedVia) => void;
}

export interface DraftKeeping {
  store: KeyStore;
  /** Whose draft; while unknown the draft lives in the page only. */
  userId: string | undefined;
  /** The live model, which says when the question was settled. */
  model: ReadModel;
}

interface DraftData extends DraftAnswers {
  forId: string | undefined;
  activeIndex: number;
}

function emptyDraft(forId: string | undefined, activeIndex: number): DraftData {
  return { forId, ...NO_ANSWERS, activeIndex };
}

/** Where a draft without `keep` is kept: nowhere. */
const NO_STORE: KeyStore = {
  getItem: () => null,
  keys: () => [],
  setItem: () => undefined,
  removeItem: () => undefined,
};

/** The kept draft for `forId` if there is one, else an empty one. */
function startDraft(
  forId: string | undefined,
  activeIndex: number,
  store: KeyStore,
  key: string | undefined,
): DraftData {
  const kept = key === undefined ? undefined : readQuestionDraft(store, key);
  return kept ? { forId, ...kept } : emptyDraft(forId, activeIndex);
}

/** Whether any question of the bundle `pendingId` is no longer pending (answered, skipped, …). */
function settledIn(state: ModelState, pendingId: string | undefined): boolean {
  const bundle = pendingId === undefined ? undefined : state.bundles[pendingId];
  return bundle !== undefined && [...bundle.questions.values()].some((q) => q.status !== 'pending');
}

export function useClarificationDraft(
  bundle: BundleState | undefined,
  options: DraftOptions,
): ClarificationDraft {
  const { locked, autoSubmit, onComplete } = options;
  const initialIndex = options.initialIndex ?? 0;
  const id = bundle?.pending_id;
  const { keep } = options;
  const keyStore = keep?.store ?? NO_STORE;
  const key =
    keep?.userId !== undefined && id !== undefined ? questionDraftKey(keep.userId, id) : undefined;
  // The live model's word, not `bundle`'s: a caller may show a captured copy of a settled bundle.
  const model = keep?.model;
  const subscribe = useCallback(
    (listener: () => void) => model?.subscribe(listener) ?? (() => undefined),
    [model],
  );
  const settled = useSyncExternalStore(subscribe, () =>
    model ? settledIn(model.getState(), id) : false,
  );
  const [raw, setRaw] = useState<DraftData>(() => startDraft(id, initialIndex, keyStore, key));
  const data = raw.forId === id ? raw : startDraft(id, initialIndex, keyStore, key);
  const update = useCallback(
    (change: (current: DraftData) => DraftData) => {
      setRaw((previous) =>
        change(previous.forId === id ? previous : startDraft(id, initialIndex, keyStore, key)),
      );
    },
    [id, initialIndex, keyStore, key],
  );

  useEffect(() => {
    if (key === undefined || raw.forId !== id) return;
    if (settled) dropQuestionDraft(keyStore, key);
    else
      keepQuestionDraft(keyStore, key, {
        answers: raw.answers,
        drafts: raw.drafts,
        activeIndex: raw.activeIndex,
      });
  }, [id, key, keyStore, raw, settled]);

  const questions = useMemo(() => (bundle ? orderedQuestions(bundle) : []), [bundle]);
  const { answers } = data;
  const activeIndex = Math.min(data.activeIndex, Math.max(0, questions.length - 1));
  const answeredCount = countAnswered(questions, answers);
  const allAnswered = questions.length > 0 && answeredCount === questions.length;

  const complete = useCallback(
    (chosen: ReadonlyMap<string, Answer>, via: CompletedVia = 'submit') => {
      if (countAnswered(questions, chosen) === questions.length) onComplete(chosen, via);
    },
    [onComplete, questions],
  );

  const setActiveIndex = useCallback(
    (index: number) => {
      const bounded = Math.max(0, Math.min(index, Math.max(0, questions.length - 1)));
      update((current) => ({ ...current, activeIndex: bounded }));
    },
    [questions.length, update],
  );

  const pickOption = useCallback(
    (questionId: string, optionId: string) => {
      if (locked) return;
      const index = questions.findIndex((q) => q.question_id === questionId);
      const question = questions[index];
      if (!question) return;
      const chosen = withOptionPicked(answers, question, optionId);
      const advance = !question.multi_select && index < questions.length - 1;
      update((current) => ({
        ...current,
        answers: chosen,
        activeIndex: advance ? index + 1 : current.activeIndex,
      }));
      if (!question.multi_select && questions.length === 1 && autoSubmit) complete(chosen, 'tap');
    },
    [answers, autoSubmit, complete, locked, questions, update],
  );

  const setCustomText = useCallback(
    (questionId: string, text: string) => {
      if (locked) return;
      update((current) => ({ ...current, ...withCustomText(current, questionId, text) }));
    },
    [locked, update],
  );

  const commitCustom = useCallback(
    (questionId: string) => {
      if (locked || !isAnswered(answers.get(questionId))) return;
      const index = questions.findIndex((q) => q.question_id === questionId);
      if (index < questions.length - 1) setActiveIndex(index + 1);
      else complete(answers);
    },
    [answers, complete, locked, questions, setActiveIndex],
  );

  const submit = useCallback(() => {
    if (!locked) complete(answers);
  }, [answers, complete, locked]);

  return {
    questions,
    activeIndex,
    setActiveIndex,
    answers,
    drafts: data.drafts,
    answeredCount,
    allAnswered,
    pickOption,
    setCustomText,
    commitCustom,
    submit,
  };
}
