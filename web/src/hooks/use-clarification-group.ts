/**
 * `useClarificationGroup`: the state of answering one bundle, shared by the
 * desktop and phone layouts (they differ in layout only).
 *
 * Owns the submission state machine around a `useClarificationDraft`:
 * idle → (undo →) submitting → resolved | expired | unavailable | error (Retry resends the
 * same action, and so does the connection's return) | refused | late (an
 * affirmative answer to an inactive bundle, sent as an ordinary message with
 * a stable admission key), or idle → cancelling → cancelled when the person
 * cancels the question (the agent is told it was cancelled). A cancel the
 * server refuses leaves the question as it was, with the reason beside it
 * (`cancelRefusal`). A single in-flight guard drops concurrent submits and cancels.
 * The bundle and answers are captured before each submit, so the outcome
 * never depends on what the live model shows by then. Escape/collapse never
 * touch the server.
 *
 * One-tap answers and Skip wait out an undo window first: Undo returns to
 * idle before any request, so the server never sees them. A bundle settled
 * elsewhere (another tab, a cancel, expiry) while the person had typed
 * something keeps the draft as `late`/`kept`: it can go as a new message or
 * be discarded, never silently lost.
 *
 * Which bundle is on screen: the live one, unless an outcome for the captured
 * one still needs the person (in flight, Retry, a late message not yet
 * admitted) or is the last word (no live bundle replaced it).
 */
import { useCallback, useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { useSendWhenHidden, type HeldSend } from './use-send-when-hidden.js';
import { useServices } from '../app/services.js';
import {
  captureAnswers,
  lateAnswerScope,
  releaseAdmissionKey,
  type CapturedAnswers,
} from '../model/late-answer.js';
import {
  activeBundleOfSession,
  transitions,
  type BundleQuestion,
  type BundleState,
} from '../model/read-model.js';
import { cancelQuestion } from '../model/question-cancel.js';
import { postClarification, type RetryReason } from '../model/respond.js';
import {
  responderLabel,
  settledElsewhere,
  type SettledElsewhere,
} from '../model/settled-elsewhere.js';
import type { Answer, RespondBody, RespondOk } from '../model/types.js';
import {
  useClarificationDraft,
  type ClarificationDraft,
  type CompletedVia,
} from './use-clarification-draft.js';
import { useMe } from './use-me.js';
import { useLateAnswerSender, type FailureReason } from './use-message-handler.js';

export { codePointLength, MAX_CUSTOM_CODE_POINTS } from './use-clarification-draft.js';

export type SubmitAction =
  { kind: 'answer'; body: RespondBody } | { kind: 'skip'; body: RespondBody };

/** Why a draft became a message: the question expired (409) or settled elsewhere. */
export type LateCause = SettledElsewhere;

export type LateMessageState =
  | { phase: 'late'; cause: LateCause; message: 'kept' | 'sending' | 'sent' | 'queued' }
  | { phase: 'late'; cause: LateCause; message: 'failed'; reason: FailureReason };

/** Who settled the bundle, as the respond reply says: this attempt, or who else. */
export type ResolvedBy = 'this_tab' | 'another_tab' | 'you_elsewhere' | 'someone_else';

export type SubmitState =
  | { phase: 'idle' }
  | { phase: 'undo'; action: SubmitAction }
  | { phase: 'submitting'; action: SubmitAction }
  | { phase: 'error'; action: SubmitAction; reason: RetryReason }
  | { phase: 'resolved'; action: SubmitAction; result: RespondOk; by: ResolvedBy }
  | { phase: 'expired' }
  /** A 404: the bundle is gone, or this person no longer sees it; not that it timed out. */
  | { phase: 'unavailable' }
  | { phase: 'refused'; action: SubmitAction; code: string }
  | { phase: 'cancelling' }
  | { phase: 'cancelled' }
  | LateMessageState;

/**
 * Why a cancel did not happen, shown while the question stays: no agent
 * waits on it any more (answer or skip it instead), it is closed to a
 * cancel (settled meanwhile: the events retire it), the request failed
 * (nothing known to have changed), or the server refused it.
 */
export type CancelRefusal =
  | { kind: 'not_waiting' }
  | { kind: 'closed' }
  | { kind: 'failed' }
  | { kind: 'refused'; code: string };

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
  /** Skips every question after the undo window; `reason` is the person's own words, if any. */
  skip: (reason: string) => void;
  /** Sends the kept draft (complete or not) as a new message. */
  sendDraft: () => void;
  /** Cancels an action still in its undo window: nothing reaches the server. */
  undo: () => void;
  /** Ends the undo window at once. */
  sendNow: () => void;
  retry: () => void;
  dismiss: () => void;
  /** Cancels the live question: its agent stops waiting and is told it was cancelled. */
  cancel: () => void;
  /** Why the last cancel of the question on screen did not happen; cleared by the next attempt. */
  cancelRefusal: CancelRefusal | undefined;
  dismissCancelRefusal: () => void;
}

interface Outcome {
  captured: CapturedAnswers;
  state: SubmitState;
}

/** The person still has work on the captured bundle: it must stay on screen. */
function holdsDraft(state: SubmitState): boolean {
  switch (state.phase) {
    case 'undo':
    case 'submitting':
    case 'error':
    case 'refused':
    case 'cancelling':
      return true;
    case 'late':
      return state.message === 'kept' || state.message === 'sending' || state.message === 'failed';
    case 'idle':
    case 'resolved':
    case 'expired':
    case 'unavailable':
    case 'cancelled':
      return false;
  }
}

function outcomeApplies(outcome: Outcome | undefined, live: BundleState | undefined): boolean {
  if (!outcome) return false;
  return holdsDraft(outcome.state) || !live || live.pending_id === outcome.captured.pendingId;
}

/** Whether the person has put anything into the draft that would be lost with it. */
function hasWork(draft: ClarificationDraft): boolean {
  return draft.answeredCount > 0 || [...draft.drafts.values()].some((text) => text.trim() !== '');
}

/** The same decision as the one this tab sent: an earlier attempt of ours landed after all. */
function sameDecision(body: RespondBody, result: RespondOk): boolean {
  const { response } = result;
  if (response.rejected !== (body.rejected === true)) return false;
  if (response.rejected) return true;
  const sent = body.answers ?? [];
  return (
    sent.length === response.answers.length &&
    sent.every((answer) => {
      const got = response.answers.find((other) => other.question_id === answer.question_id);
      return (
        got !== undefined &&
        got.custom_text === (answer.custom_text ?? '') &&
        [...got.selected_options].sort().join('\u0000') ===
          [...(answer.selected_options ?? [])].sort().join('\u0000')
      );
    })
  );
}

/** Reasons a failed attempt may simply not have reached the server; the connection's return retries them. */
const RETRY_ON_RECONNECT: ReadonlySet<RetryReason> = new Set(['network', 'timeout', 'unavailable']);

export function useClarificationGroup(live: BundleState | undefined): ClarificationGroup {
  const { api, model, config, keyStore, sync } = useServices();
  const me = useMe();
  const sendLateAnswer = useLateAnswerSender();
  const [stored, setOutcome] = useState<Outcome>();
  const [collapsedFor, setCollapsedFor] = useState<string>();
  const [refused, setRefused] = useState<{ pendingId: string; refusal: CancelRefusal }>();
  const inFlight = useRef(false);
  const undoTimer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const pendingUndo = useRef<HeldSend | undefined>(undefined);
  const connection = useSyncExternalStore(
    model.subscribe,
    () => model.getState().connection,
    () => model.getState().connection,
  );

  // A new live bundle replaces a finished outcome of an older one.
  const outcome = outcomeApplies(stored, live) ? stored : undefined;
  useEffect(() => {
    if (stored && !outcome) setOutcome(undefined);
  }, [stored, outcome]);

  // Who settled a question the draft outlived, as the transcript says now: the page can learn
  // that the question no longer waits (a session change, a snapshot after a reconnect) before
  // the rows that say who settled it, so the cause found then may be only 'expired'.
  const lateCause = useSyncExternalStore(model.subscribe, () =>
    outcome?.state.phase === 'late'
      ? settledElsewhere(
          model.getState(),
          outcome.captured.sessionId,
          outcome.captured.pendingId,
          me,
        )
      : undefined,
  );
  const state: SubmitState = useMemo(() => {
    const current = outcome?.state ?? { phase: 'idle' };
    if (current.phase !== 'late' || lateCause === undefined || lateCause === 'expired') {
      return current;
    }
    return { ...current, cause: lateCause };
  }, [outcome?.state, lateCause]);
  const bundle =
    outcome && live?.pending_id !== outcome.captured.pendingId ? outcome.captured.bundle : live;
  const lateMessage = state.phase === 'late';
  const busy =
    state.phase === 'submitting' ||
    state.phase === 'undo' ||
    state.phase === 'cancelling' ||
    (state.phase === 'late' && state.message === 'sending');

  const sendLate = useCallback(
    async (captured: CapturedAnswers, cause: LateCause) => {
      inFlight.current = true;
      setOutcome({ captured, state: { phase: 'late', cause, message: 'sending' } });
      try {
        const sent = await sendLateAnswer(captured);
        const next: LateMessageState =
          sent.outcome === 'failed'
            ? { phase: 'late', cause, message: 'failed', reason: sent.reason }
            : { phase: 'late', cause, message: sent.outcome };
        setOutcome({ captured, state: next });
      } finally {
        inFlight.current = false;
      }
    },
    [sendLateAnswer],
  );

  const run = useCallback(
    async (action: SubmitAction, captured: CapturedAnswers, keepalive = false) => {
      if (inFlight.current) return;
      inFlight.current = true;
      const settle = (next: SubmitState) => {
        setOutcome({ captured, state: next });
      };
      settle({ phase: 'submitting', action });
      try {
        const result = await postClarification(captured.pendingId, action.body, {
          deadlineMs: config.respondDeadlineMs,
          keepalive,
        });
        switch (result.kind) {
          case 'resolved': {
            const { claimed, status, response } = result.result;
            model.update((s) =>
              transitions.retireBundle(s, captured.pendingId, status, response.responded_at),
            );
            const mine = response.responded_by?.user_id === me && me !== undefined;
            const by: ResolvedBy =
              claimed || (mine && sameDecision(action.body, result.result))
                ? 'this_tab'
                : responderLabel(response.responded_by, me);
            settle({ phase: 'resolved', action, result: result.result, by });
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
            await sendLate(captured, 'expired');
            return;
          case 'retryable':
            settle({ phase: 'error', action, reason: result.reason });
            return;
          case 'refused':
            if (result.status === 404) {
              // Not visible to this person (any more): it may well be pending for others.
              model.update((s) => transitions.forgetBundle(s, captured.pendingId));
              settle({ phase: 'unavailable' });
              // The whole session may be gone for them (removed from its workspace).
              sync.recheckSession(captured.sessionId);
              return;
            }
            settle({ phase: 'refused', action, code: result.code });
            return;
        }
      } finally {
        inFlight.current = false;
      }
    },
    [config.respondDeadlineMs, me, model, sendLate, sync],
  );

  const clearUndo = useCallback(() => {
    clearTimeout(undoTimer.current);
    undoTimer.current = undefined;
    pendingUndo.current = undefined;
  }, []);

  /** Holds `action` for the undo window; only then does anything reach the server. */
  const afterUndo = useCallback(
    (action: SubmitAction, captured: CapturedAnswers) => {
      if (inFlight.current || undoTimer.current !== undefined) return;
      const fire = (keepalive: boolean) => {
        clearUndo();
        void run(action, captured, keepalive);
      };
      setOutcome({ captured, state: { phase: 'undo', action } });
      pendingUndo.current = fire;
      undoTimer.current = setTimeout(() => {
        fire(false);
      }, config.undoWindowMs);
    },
    [clearUndo, config.undoWindowMs, run],
  );

  useSendWhenHidden(pendingUndo);

  const onComplete = useCallback(
    (chosen: ReadonlyMap<string, Answer>, via: CompletedVia) => {
      if (!bundle || inFlight.current) return;
      const captured = captureAnswers(bundle, chosen);
      if (state.phase === 'late') {
        void sendLate(captured, state.cause);
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
      if (via === 'tap') afterUndo({ kind: 'answer', body }, captured);
      else void run({ kind: 'answer', body }, captured);
    },
    [afterUndo, bundle, run, sendLate, state],
  );

  const draft = useClarificationDraft(bundle, {
    locked: busy,
    autoSubmit: !lateMessage,
    keep: { store: keyStore, userId: me, model },
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

  const skip = useCallback(
    (reason: string) => {
      if (!bundle || busy || inFlight.current) return;
      if (lateMessage) {
        dismiss();
        return;
      }
      const words = reason.trim();
      afterUndo(
        {
          kind: 'skip',
          body: { rejected: true, ...(words === '' ? {} : { reject_reason: words }) },
        },
        captureAnswers(bundle, draft.answers),
      );
    },
    [afterUndo, bundle, busy, dismiss, draft.answers, lateMessage],
  );

  const cancel = useCallback(() => {
    if (!bundle || inFlight.current || state.phase !== 'idle') return;
    inFlight.current = true;
    const captured = captureAnswers(bundle, draft.answers);
    const { pendingId } = captured;
    setRefused(undefined);
    setOutcome({ captured, state: { phase: 'cancelling' } });
    const stays = (refusal: CancelRefusal) => {
      setOutcome(undefined);
      setRefused({ pendingId, refusal });
    };
    void cancelQuestion(api, pendingId, { deadlineMs: config.respondDeadlineMs })
      .then((outcome) => {
        switch (outcome.kind) {
          case 'cancelled':
            model.update((s) => transitions.retireBundle(s, pendingId, 'cancelled'));
            setOutcome({ captured, state: { phase: 'cancelled' } });
            return;
          case 'closed': {
            // Settled meanwhile: its own events say how; a status guessed here could contradict them.
            const now = model.getState();
            if (activeBundleOfSession(now, captured.sessionId)?.pending_id === pendingId) {
              stays({ kind: 'closed' });
              return;
            }
            // Already retired: say who settled it, as for any draft a question settled under.
            const cause = settledElsewhere(now, captured.sessionId, pendingId, me);
            setOutcome(
              hasWork(draft)
                ? { captured, state: { phase: 'late', cause, message: 'kept' } }
                : undefined,
            );
            return;
          }
          case 'unavailable':
            model.update((s) => transitions.forgetBundle(s, pendingId));
            setOutcome({ captured, state: { phase: 'unavailable' } });
            sync.recheckSession(captured.sessionId);
            return;
          case 'not_waiting':
            stays({ kind: 'not_waiting' });
            return;
          case 'retryable':
            stays({ kind: 'failed' });
            return;
          case 'refused':
            stays({ kind: 'refused', code: outcome.code });
            return;
        }
      })
      .finally(() => {
        inFlight.current = false;
      });
  }, [api, bundle, config.respondDeadlineMs, draft, me, model, state.phase, sync]);

  const undo = useCallback(() => {
    if (state.phase !== 'undo') return;
    clearUndo();
    setOutcome(undefined);
  }, [clearUndo, state.phase]);

  const sendNow = useCallback(() => {
    pendingUndo.current?.(false);
  }, []);

  const sendDraft = useCallback(() => {
    if (!bundle || inFlight.current || state.phase !== 'late' || draft.answeredCount === 0) return;
    // The person may have edited the kept draft; the admission key stays the same.
    void sendLate(captureAnswers(bundle, draft.answers), state.cause);
  }, [bundle, draft.answeredCount, draft.answers, sendLate, state]);

  const retry = useCallback(() => {
    if (inFlight.current || !outcome) return;
    if (state.phase === 'error' || state.phase === 'refused') {
      void run(state.action, outcome.captured);
    } else if (state.phase === 'late' && state.message === 'failed') {
      sendDraft();
    }
  }, [outcome, run, sendDraft, state]);

  // The connection came back: an attempt that may never have reached the server goes again.
  // Safe to repeat: the first claim wins and a repeat of our own answer reads as ours.
  const wasLive = useRef(connection === 'live');
  useEffect(() => {
    const back = connection === 'live' && !wasLive.current;
    wasLive.current = connection === 'live';
    if (back && state.phase === 'error' && RETRY_ON_RECONNECT.has(state.reason)) retry();
  }, [connection, retry, state]);

  // A bundle settled elsewhere under a draft with work in it: keep the draft on screen.
  const watched = useRef<{ bundle: BundleState; answers: ReadonlyMap<string, Answer> }>(undefined);
  useEffect(() => {
    const previous = watched.current;
    watched.current =
      state.phase === 'idle' && live !== undefined && bundle === live && hasWork(draft)
        ? { bundle: live, answers: draft.answers }
        : undefined;
    if (!previous || stored || state.phase !== 'idle') return;
    if (previous.bundle.pending_id === live?.pending_id) return;
    const { session_id: sessionId, pending_id: pendingId } = previous.bundle;
    const cause = settledElsewhere(model.getState(), sessionId, pendingId, me);
    setOutcome({
      captured: captureAnswers(previous.bundle, previous.answers),
      state: { phase: 'late', cause, message: 'kept' },
    });
  });

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
    sendDraft,
    undo,
    sendNow,
    retry,
    dismiss,
    cancel,
    cancelRefusal:
      refused !== undefined && state.phase === 'idle' && refused.pendingId === live?.pending_id
        ? refused.refusal
        : undefined,
    dismissCancelRefusal: () => {
      setRefused(undefined);
    },
  };
}
