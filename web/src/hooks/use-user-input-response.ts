/**
 * `useUserInputResponse(requestId)`: answering one consent or action request,
 * shared by the inbox and the session view. Owns only the attempt: the
 * request's state stays in the user-input model, which a successful answer
 * updates at once (the event that follows is the same revision, so it changes
 * nothing).
 *
 * One attempt at a time; a failed one keeps its answer for Retry. A 409 is
 * `already_settled` (someone else was first; the settled event shows how),
 * never an error.
 */
import { useCallback, useRef, useState } from 'react';
import { useServices } from '../app/services.js';
import { postUserInputAnswer } from '../model/user-input-respond.js';
import { userInputTransitions } from '../model/user-inputs.js';
import type { UserInputAnswer } from '../model/types.js';

export type ResponseState =
  | { phase: 'idle' }
  | { phase: 'submitting'; answer: UserInputAnswer }
  | { phase: 'answered'; answer: UserInputAnswer }
  | { phase: 'already_settled' }
  | { phase: 'gone' }
  | { phase: 'error'; answer: UserInputAnswer }
  | { phase: 'refused'; answer: UserInputAnswer; code: string };

export interface UserInputResponse {
  state: ResponseState;
  respond: (answer: UserInputAnswer) => void;
  /** Sends the failed answer again; the registry's first-wins rule makes that safe. */
  retry: () => void;
}

export function useUserInputResponse(requestId: string): UserInputResponse {
  const { api, config, userInputs } = useServices();
  const [state, setState] = useState<ResponseState>({ phase: 'idle' });
  const inFlight = useRef(false);

  const respond = useCallback(
    (answer: UserInputAnswer) => {
      if (inFlight.current) return;
      inFlight.current = true;
      setState({ phase: 'submitting', answer });
      void postUserInputAnswer(api, requestId, answer, {
        deadlineMs: config.respondDeadlineMs,
      }).then((outcome) => {
        inFlight.current = false;
        switch (outcome.kind) {
          case 'answered':
            userInputs.update((model) => userInputTransitions.view(model, outcome.request));
            setState({ phase: 'answered', answer });
            return;
          case 'already_settled':
            setState({ phase: 'already_settled' });
            return;
          case 'gone':
            userInputs.update((model) => userInputTransitions.retire(model, requestId));
            setState({ phase: 'gone' });
            return;
          case 'retryable':
            setState({ phase: 'error', answer });
            return;
          case 'refused':
            setState({ phase: 'refused', answer, code: outcome.code });
            return;
        }
      });
    },
    [api, config.respondDeadlineMs, requestId, userInputs],
  );

  const retry = useCallback(() => {
    if (state.phase === 'error') respond(state.answer);
  }, [respond, state]);

  return { state, respond, retry };
}
