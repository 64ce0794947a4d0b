/**
 * `useClarificationGroup`: the state of answering one bundle, shared by the
 * desktop and phone layouts (they differ in layout only).
 *
 * Owns the submission state machine around a `useClarificationDraft`:
 * idle → submitting → resolved | expired | error (Retry resends the same
 * action) | refused | late (an affirmative answer to an inactive bundle, sent
 * as an ordinary message with a stable admission key). A single in-flight
 * guard drops concurrent submits. The bundle and answers are captured before
 * each submit, so the outcome never depends on what the live model shows by
 * then. Escape/collapse never touch the server.
 *
 * Which bundle is on screen: the live one, unless an outcome for the captured
 * one still needs the person (in flight, Retry, a late message not yet
 * admitted) or is the last word (no live bundle replaced it).
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { useServices } from '../app/services.js';
import {
  captureAnswers,
  lateAnswerScope,
  releaseAdmissionKey,
  type CapturedAnswers,
} from '../model/late-answer.js';
import { transitions, type BundleQuestion, type BundleState } from '../model/read-model.js';
import { postClarification, type RetryReason } from '../model/respond.js';
import type { Answer, RespondBody, RespondOk } from '../model/types.js';
import { useClarificationDraft, type ClarificationDraft } from './use-clarification-draft.js';
import { useLateAnswerSender, type FailureReason } from './use-message-handler.js';

export { codePointLength, isAnswered, MAX_CUSTOM_CODE_POINTS } from './use-clarification-draft.js';

export const SKIP_REASON = 'User skipped';

export type SubmitAction =
  { kind: 'answer'; body: RespondBody } | { kind: 'skip'; body: RespondBody };

export type LateMessageState =
  | { phase: 'late'; message: 'sending' | 'sent' | 'queued' }
  | { phase: 'late'; message: 'failed'; reason: FailureReason };

export type SubmitState =
  | { phase: 'idle' }
  | { phase: 'submitting'; action: SubmitAction }
  | { phase: 'error'; action: SubmitAction; reason: RetryReason }
  | { phase: 'resolved'; action: SubmitAction; result: RespondOk }
  | { phase: 'expired' }
  | { phase: 'refused'; action: SubmitAction; code: string }
  | LateMessageState;

/**
 * `respond` answers the bundle itself; `message` sends the draft as an
 * ordinary message because the bundle turned out to be inactive.
 */
export type GroupMode = 'respond' | 'message';

export interface ClarificationGroup {
  /** The bundle on screen: the live one, or the one captured at the last submit. */
  bundle: BundleState | undefined;
  draft: ClarificationDraft;
  /** Kept for the banner, which names questions of the winner's answers. */
  questions: BundleQuestion[];
  mode: GroupMode;
  state: SubmitState;
  busy: boolean;
  /** Whether the overlay has work to show: a live bundle or a draft still to be admitted. */
  formVisible: boolean;
  collapsed: boolean;
  setCollapsed: (collapsed: boolean) => void;
  skip: () => void;
  retry: () => void;
  dismiss: () => void;
}

interface Outcome {
  captured: CapturedAnswers;
  state: SubmitState;
}

/** The person still has work on the captured bundle: it must stay on screen. */
function holdsDraft(state: SubmitState): boolean {
  switch (state.phase) {
    case 'submitting':
    case 'error':
    case 'refused':
      return true;
    case 'late':
      return state.message === 'sending' || state.message === 'failed';
    case 'idle':
    case 'resolved':
    case 'expired':
      return false;
  }
}

function outcomeApplies(outcome: Outcome | undefined, live: BundleState | undefined): boolean {
  if (!outcome) return false;
  return holdsDraft(outcome.state) || !live || live.pending_id === outcome.captured.pendingId;
}

export function useClarificationGroup(live: BundleState | undefined): ClarificationGroup {
  const { model, config, keyStore } = useServices();
  const sendLateAnswer = useLateAnswerSender();
  const [stored, setOutcome] = useState<Outcome>();
  const [collapsedFor, setCollapsedFor] = useState<string>();
  const inFlight = useRef(false);

  // A new live bundle replaces a finished outcome of an older one.
  const outcome = outcomeApplies(stored, live) ? stored : undefined;
  useEffect(() => {
    if (stored && !outcome) setOutcome(undefined);
  }, [stored, outcome]);

  const state: SubmitState = outcome?.state ?? { phase: 'idle' };
  const bundle =
    outcome && live?.pending_id !== outcome.captured.pendingId ? outcome.captured.bundle : live;
  const lateMessage = state.phase === 'late';
  const busy =
    state.phase === 'submitting' || (state.phase === 'late' && state.message === 'sending');

  const sendLate = useCallback(
    async (captured: CapturedAnswers) => {
      inFlight.current = true;
      setOutcome({ captured, state: { phase: 'late', message: 'sending' } });
      try {
        const sent = await sendLateAnswer(captured);
        const next: LateMessageState =
          sent.outcome === 'failed'
            ? { phase: 'late', message: 'failed', reason: sent.reason }
            : { phase: 'late', message: sent.outcome };
        setOutcome({ captured, state: next });
      } finally {
        inFlight.current = false;
      }
    },
    [sendLateAnswer],
  );

  const run = useCallback(
    async (action: SubmitAction, captured: CapturedAnswers) => {
      if (inFlight.current) return;
      inFlight.current = true;
      const settle = (next: SubmitState) => {
        setOutcome({ captured, state: next });
      };
      settle({ phase: 'submitting', action });
      try {
        const result = await postClarification(captured.pendingId, action.body, {
          deadlineMs: config.respondDeadlineMs,
        });
        switch (result.kind) {
          case 'resolved': {
            const { status, response } = result.result;
            model.update((s) =>
              transitions.retireBundle(s, captured.pendingId, status, response.responded_at),
            );
            settle({ phase: 'resolved', action, result: result.result });
            return;
          }
          case 'not_active':
            model.update((s) => transitions.retireBundle(s, captured.pendingId, 'expired'));
            // A skip of an inactive question has nothing left to say; an answer still does.
            if (action.kind === 'skip') {
              settle({ phase: 'expired' });
              return;
            }
            inFlight.current = false;
            await sendLate(captured);
            return;
          case 'retryable':
            settle({ phase: 'error', action, reason: result.reason });
            return;
          case 'refused':
            if (result.status === 404) {
              model.update((s) => transitions.retireBundle(s, captured.pendingId, 'expired'));
              settle({ phase: 'expired' });
              return;
            }
            settle({ phase: 'refused', action, code: result.code });
            return;
        }
      } finally {
        inFlight.current = false;
      }
    },
    [config.respondDeadlineMs, model, sendLate],
  );

  const onComplete = useCallback(
    (chosen: Record<string, Answer>) => {
      if (!bundle || inFlight.current) return;
      const captured = captureAnswers(bundle, chosen);
      if (lateMessage) {
        void sendLate(captured);
        return;
      }
      const body: RespondBody = {
        answers: captured.answers.map((answer) => ({
          question_id: answer.question_id,
          selected_options: answer.selected_options,
          custom_text: answer.custom_text.trim(),
        })),
        rejected: false,
      };
      void run({ kind: 'answer', body }, captured);
    },
    [bundle, lateMessage, run, sendLate],
  );

  const draft = useClarificationDraft(bundle, {
    locked: busy,
    autoSubmit: !lateMessage,
    onComplete,
  });

  const dismiss = useCallback(() => {
    if (inFlight.current) return;
    // A late answer the person throws away must not be reconciled into a later one.
    if (outcome?.state.phase === 'late' && outcome.state.message === 'failed') {
      releaseAdmissionKey(keyStore, lateAnswerScope(outcome.captured.pendingId));
    }
    setOutcome(undefined);
  }, [keyStore, outcome]);

  const skip = useCallback(() => {
    if (!bundle || busy || inFlight.current) return;
    if (lateMessage) {
      dismiss();
      return;
    }
    void run(
      { kind: 'skip', body: { rejected: true, reject_reason: SKIP_REASON } },
      captureAnswers(bundle, draft.answers),
    );
  }, [bundle, busy, dismiss, draft.answers, lateMessage, run]);

  const retry = useCallback(() => {
    if (inFlight.current || !outcome) return;
    if (state.phase === 'error' || state.phase === 'refused') {
      void run(state.action, outcome.captured);
    } else if (state.phase === 'late' && state.message === 'failed') {
      // The person may have edited the kept draft; the admission key stays the same.
      draft.submit();
    }
  }, [draft, outcome, run, state]);

  const formVisible =
    bundle !== undefined &&
    (state.phase === 'idle' || holdsDraft(state)) &&
    draft.questions.length > 0;

  return {
    bundle,
    draft,
    questions: draft.questions,
    mode: lateMessage ? 'message' : 'respond',
    state,
    busy,
    formVisible,
    collapsed: bundle !== undefined && collapsedFor === bundle.pending_id,
    setCollapsed: (collapsed: boolean) => {
      setCollapsedFor(collapsed ? bundle?.pending_id : undefined);
    },
    skip,
    retry,
    dismiss,
  };
}
