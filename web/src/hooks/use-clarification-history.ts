/**
 * `useClarificationHistory`: the transcript's "answer in a new message" form
 * for a bundle that is no longer active. It never calls the respond endpoint:
 * the draft goes straight through `useLateAnswerSender`, whose admission key
 * (per pending ID, shared with the overlay) survives retries and the form
 * closing and reopening until the server accepts the message. A refused or
 * uncertain attempt keeps the draft.
 */
import { useCallback, useRef, useState } from 'react';
import { captureAnswers } from '../model/late-answer.js';
import type { BundleState } from '../model/read-model.js';
import type { Answer } from '../model/types.js';
import { useClarificationDraft, type ClarificationDraft } from './use-clarification-draft.js';
import { useLateAnswerSender, type FailureReason } from './use-message-handler.js';

export type HistoryFormState =
  { phase: 'editing' } | { phase: 'sending' } | { phase: 'failed'; reason: FailureReason };

export interface ClarificationHistoryForm {
  draft: ClarificationDraft;
  state: HistoryFormState;
  busy: boolean;
}

export function useClarificationHistory(
  bundle: BundleState,
  initialIndex: number,
  onAdmitted: (outcome: 'sent' | 'queued') => void,
): ClarificationHistoryForm {
  const sendLateAnswer = useLateAnswerSender();
  const [state, setState] = useState<HistoryFormState>({ phase: 'editing' });
  const inFlight = useRef(false);
  const busy = state.phase === 'sending';

  const onComplete = useCallback(
    (chosen: ReadonlyMap<string, Answer>) => {
      if (inFlight.current) return;
      inFlight.current = true;
      setState({ phase: 'sending' });
      void sendLateAnswer(captureAnswers(bundle, chosen))
        .then((result) => {
          if (result.outcome === 'failed') {
            setState({ phase: 'failed', reason: result.reason });
            return;
          }
          setState({ phase: 'editing' });
          onAdmitted(result.outcome);
        })
        .finally(() => {
          inFlight.current = false;
        });
    },
    [bundle, onAdmitted, sendLateAnswer],
  );

  // Sending a message is deliberate here: a pick never sends on its own.
  const draft = useClarificationDraft(bundle, {
    locked: busy,
    autoSubmit: false,
    initialIndex,
    onComplete,
  });
  return { draft, state, busy };
}
