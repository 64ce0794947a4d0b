/**
 * `useClarificationGroup`: the state of answering one bundle, shared by the
 * desktop and phone layouts (they differ in layout only).
 *
 * Owns the draft answers, the step, and the submission state machine:
 * idle → submitting → resolved | expired | error (Retry resends the same
 * action) | late (an affirmative answer to an inactive bundle, sent as an
 * ordinary message through `useMessageHandler` with a stable admission key).
 * A single in-flight guard drops concurrent submits. The bundle and answers
 * are captured before each submit, so the outcome never depends on what the
 * live model shows by then. Escape/collapse never touch the server.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useServices } from '../app/services.js';
import { admissionKeyFor, formatLateAnswer, type AnswerSnapshot } from '../model/late-answer.js';
import {
  orderedQuestions,
  transitions,
  type BundleQuestion,
  type BundleState,
} from '../model/read-model.js';
import { postClarification, type RetryReason } from '../model/respond.js';
import type { Answer, RespondBody, RespondOk } from '../model/types.js';
import { useMessageHandler } from './use-message-handler.js';

export const MAX_CUSTOM_CODE_POINTS = 2000;
export const SKIP_REASON = 'User skipped';

export type SubmitAction =
  { kind: 'answer'; body: RespondBody } | { kind: 'skip'; body: RespondBody };

export type SubmitState =
  | { phase: 'idle' }
  | { phase: 'submitting'; action: SubmitAction }
  | { phase: 'error'; action: SubmitAction; reason: RetryReason }
  | { phase: 'resolved'; action: SubmitAction; result: RespondOk }
  | { phase: 'expired' }
  | { phase: 'refused'; action: SubmitAction; code: string }
  | { phase: 'late'; message: 'sending' | 'sent' | 'queued' | 'failed' };

/** Length in Unicode code points, the unit of the server's 2000 cap (not UTF-16 units). */
export function codePointLength(text: string): number {
  let count = 0;
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    if (unit >= 0xd800 && unit <= 0xdbff && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) index++;
    }
    count++;
  }
  return count;
}

/** Whether an answer counts: an option picked or non-empty text within the limit. */
export function isAnswered(answer: Answer | undefined): boolean {
  if (!answer) return false;
  const text = answer.custom_text.trim();
  return (
    answer.selected_options.length > 0 ||
    (text !== '' && codePointLength(text) <= MAX_CUSTOM_CODE_POINTS)
  );
}

export interface ClarificationGroup {
  /** The bundle on screen: the live one, or the one captured at the last submit. */
  bundle: BundleState | undefined;
  questions: BundleQuestion[];
  activeIndex: number;
  setActiveIndex: (index: number) => void;
  answers: Record<string, Answer>;
  drafts: Record<string, string>;
  answeredCount: number;
  allAnswered: boolean;
  state: SubmitState;
  busy: boolean;
  collapsed: boolean;
  setCollapsed: (collapsed: boolean) => void;
  pickOption: (questionId: string, optionId: string) => void;
  setCustomText: (questionId: string, text: string) => void;
  commitCustom: (questionId: string) => void;
  submit: () => void;
  skip: () => void;
  retry: () => void;
  dismiss: () => void;
}

export function useClarificationGroup(live: BundleState | undefined): ClarificationGroup {
  const { model, config, keyStore } = useServices();
  const [captured, setCaptured] = useState<AnswerSnapshot & { bundle: BundleState }>();
  const [answers, setAnswers] = useState<Record<string, Answer>>({});
  const [drafts, setDrafts] = useState<Record<string, string>>({});
  const [activeIndex, setActiveIndexState] = useState(0);
  const [state, setState] = useState<SubmitState>({ phase: 'idle' });
  const [collapsed, setCollapsed] = useState(false);
  const inFlight = useRef(false);
  const bundleId = useRef<string | undefined>(undefined);

  const keepOutcome = state.phase !== 'idle';
  const bundle =
    live && (!captured || live.pending_id === captured.pendingId || !keepOutcome)
      ? live
      : captured?.bundle;
  const sessionId = bundle?.session_id ?? live?.session_id ?? '';
  const sendMessage = useMessageHandler(sessionId);

  // A different bundle starts a fresh draft, unless an outcome for the old one is on screen.
  useEffect(() => {
    if (!live || live.pending_id === bundleId.current) return;
    if (inFlight.current) return;
    bundleId.current = live.pending_id;
    setAnswers({});
    setDrafts({});
    setActiveIndexState(0);
    setCollapsed(false);
    setCaptured(undefined);
    setState({ phase: 'idle' });
  }, [live]);

  const questions = useMemo(() => (bundle ? orderedQuestions(bundle) : []), [bundle]);
  const answeredCount = questions.filter((question) =>
    isAnswered(answers[question.question_id]),
  ).length;
  const allAnswered = questions.length > 0 && answeredCount === questions.length;
  const busy =
    state.phase === 'submitting' || (state.phase === 'late' && state.message === 'sending');

  const setActiveIndex = useCallback(
    (index: number) => {
      setActiveIndexState(Math.max(0, Math.min(index, Math.max(0, questions.length - 1))));
    },
    [questions.length],
  );

  const sendLate = useCallback(
    async (snapshot: AnswerSnapshot) => {
      const scope = `late:${snapshot.pendingId}`;
      const key = admissionKeyFor(keyStore, scope);
      setState({ phase: 'late', message: 'sending' });
      const outcome = await sendMessage(formatLateAnswer(snapshot), key, scope);
      setState({
        phase: 'late',
        message: outcome.outcome === 'failed' ? 'failed' : outcome.outcome,
      });
    },
    [keyStore, sendMessage],
  );

  const run = useCallback(
    async (action: SubmitAction, snapshot: AnswerSnapshot & { bundle: BundleState }) => {
      if (inFlight.current) return;
      inFlight.current = true;
      setCaptured(snapshot);
      setState({ phase: 'submitting', action });
      try {
        const outcome = await postClarification(snapshot.pendingId, action.body, {
          deadlineMs: config.respondDeadlineMs,
        });
        switch (outcome.kind) {
          case 'resolved':
            model.update((s) =>
              transitions.retireBundle(
                s,
                snapshot.pendingId,
                outcome.result.status,
                outcome.result.response.responded_at,
              ),
            );
            setState({ phase: 'resolved', action, result: outcome.result });
            return;
          case 'not_active':
            model.update((s) => transitions.retireBundle(s, snapshot.pendingId, 'expired'));
            if (action.kind === 'skip') {
              setState({ phase: 'expired' });
              return;
            }
            inFlight.current = false;
            await sendLate(snapshot);
            return;
          case 'retryable':
            setState({ phase: 'error', action, reason: outcome.reason });
            return;
          case 'refused':
            if (outcome.status === 404) {
              model.update((s) => transitions.retireBundle(s, snapshot.pendingId, 'expired'));
              setState({ phase: 'expired' });
              return;
            }
            setState({ phase: 'refused', action, code: outcome.code });
            return;
        }
      } finally {
        inFlight.current = false;
      }
    },
    [config.respondDeadlineMs, model, sendLate],
  );

  const snapshotOf = useCallback(
    (
      current: BundleState,
      chosen: Record<string, Answer>,
    ): AnswerSnapshot & { bundle: BundleState } => {
      const ordered = orderedQuestions(current);
      return {
        bundle: current,
        pendingId: current.pending_id,
        taskId: current.task_id,
        sessionId: current.session_id,
        questions: ordered.map((q) => ({
          question_id: q.question_id,
          prompt: q.prompt,
          options: q.options,
        })),
        answers: ordered.map(
          (q) =>
            chosen[q.question_id] ?? {
              question_id: q.question_id,
              selected_options: [],
              custom_text: '',
            },
        ),
      };
    },
    [],
  );

  const submitWith = useCallback(
    (chosen: Record<string, Answer>) => {
      if (!bundle || busy || inFlight.current) return;
      const ordered = orderedQuestions(bundle);
      if (!ordered.every((q) => isAnswered(chosen[q.question_id]))) return;
      const snapshot = snapshotOf(bundle, chosen);
      const body: RespondBody = {
        answers: snapshot.answers.map((answer) => ({
          question_id: answer.question_id,
          selected_options: answer.selected_options,
          custom_text: answer.custom_text.trim(),
        })),
        rejected: false,
      };
      void run({ kind: 'answer', body }, snapshot);
    },
    [bundle, busy, run, snapshotOf],
  );

  const pickOption = useCallback(
    (questionId: string, optionId: string) => {
      if (busy) return;
      const question = questions.find((q) => q.question_id === questionId);
      if (!question) return;
      const previous = answers[questionId];
      let next: Answer;
      if (question.multi_select) {
        const selected = previous?.selected_options ?? [];
        next = {
          question_id: questionId,
          selected_options: selected.includes(optionId)
            ? selected.filter((id) => id !== optionId)
            : [...selected, optionId],
          custom_text: previous?.custom_text ?? '',
        };
      } else {
        next = { question_id: questionId, selected_options: [optionId], custom_text: '' };
        setDrafts((d) => ({ ...d, [questionId]: '' }));
      }
      const chosen = { ...answers, [questionId]: next };
      setAnswers(chosen);
      if (question.multi_select) return;
      if (questions.length === 1) {
        submitWith(chosen);
        return;
      }
      const index = questions.indexOf(question);
      if (index < questions.length - 1) setActiveIndexState(index + 1);
    },
    [answers, busy, questions, submitWith],
  );

  const setCustomText = useCallback(
    (questionId: string, text: string) => {
      if (busy) return;
      setDrafts((d) => ({ ...d, [questionId]: text }));
      const question = questions.find((q) => q.question_id === questionId);
      const trimmed = text.trim();
      setAnswers((current) => {
        const previous = current[questionId];
        const keep = question?.multi_select ? (previous?.selected_options ?? []) : [];
        const usable = trimmed !== '' && codePointLength(trimmed) <= MAX_CUSTOM_CODE_POINTS;
        if (!usable && keep.length === 0) {
          return Object.fromEntries(Object.entries(current).filter(([id]) => id !== questionId));
        }
        return {
          ...current,
          [questionId]: {
            question_id: questionId,
            selected_options: keep,
            custom_text: usable ? trimmed : '',
          },
        };
      });
    },
    [busy, questions],
  );

  const commitCustom = useCallback(
    (questionId: string) => {
      if (busy) return;
      const answer = answers[questionId];
      if (!isAnswered(answer)) return;
      if (questions.length === 1) {
        submitWith(answers);
        return;
      }
      const index = questions.findIndex((q) => q.question_id === questionId);
      if (index < questions.length - 1) setActiveIndexState(index + 1);
      else submitWith(answers);
    },
    [answers, busy, questions, submitWith],
  );

  const submit = useCallback(() => {
    submitWith(answers);
  }, [answers, submitWith]);

  const skip = useCallback(() => {
    if (!bundle || busy || inFlight.current) return;
    void run(
      { kind: 'skip', body: { rejected: true, reject_reason: SKIP_REASON } },
      snapshotOf(bundle, answers),
    );
  }, [answers, bundle, busy, run, snapshotOf]);

  const retry = useCallback(() => {
    if (inFlight.current) return;
    if (state.phase === 'error' && captured) {
      void run(state.action, captured);
    } else if (state.phase === 'late' && state.message === 'failed' && captured) {
      void sendLate(captured);
    }
  }, [captured, run, sendLate, state]);

  const dismiss = useCallback(() => {
    if (inFlight.current) return;
    setCaptured(undefined);
    setState({ phase: 'idle' });
  }, []);

  return {
    bundle,
    questions,
    activeIndex: Math.min(activeIndex, Math.max(0, questions.length - 1)),
    setActiveIndex,
    answers,
    drafts,
    answeredCount,
    allAnswered,
    state,
    busy,
    collapsed,
    setCollapsed,
    pickOption,
    setCustomText,
    commitCustom,
    submit,
    skip,
    retry,
    dismiss,
  };
}
