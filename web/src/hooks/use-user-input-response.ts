/**
 * `useUserInputResponse(requestId)`: answering one consent or action request,
 * shared by the inbox and the session view. Owns only the attempt: the
 * request's state stays in the user-input model, which a successful answer
 * updates at once (the event that follows is the same revision, so it changes
 * nothing).
 *
 * One attempt at a time; a failed one keeps its answer for Retry, and is sent
 * again by itself when the events connection returns. A 409 is
 * `already_settled` (someone else was first; the settled event shows how),
 * never an error. A Reject or Skip first waits out the undo window: Undo
 * returns to idle before any request is made.
 */
import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { useSendWhenHidden, type HeldSend } from './use-send-when-hidden.js';
import { useServices } from '../app/services.js';
import { postUserInputAnswer } from '../model/user-input-respond.js';
import { userInputTransitions } from '../model/user-inputs.js';
import type { UserInputAnswer } from '../model/types.js';

export type ResponseState =
  | { phase: 'idle' }
  | { phase: 'undo'; answer: UserInputAnswer }
  | { phase: 'submitting'; answer: UserInputAnswer }
  | { phase: 'answered'; answer: UserInputAnswer }
  | { phase: 'already_settled' }
  | { phase: 'agent_exited' }
  | { phase: 'gone' }
  | { phase: 'error'; answer: UserInputAnswer }
  | { phase: 'refused'; answer: UserInputAnswer; code: string };

export interface UserInputResponse {
  state: ResponseState;
  respond: (answer: UserInputAnswer) => void;
  /** Sends `answer` once the undo window has passed, unless `undo` comes first. */
  respondAfterUndo: (answer: UserInputAnswer) => void;
  undo: () => void;
  sendNow: () => void;
  /** Sends the failed answer again; the registry's first-wins rule makes that safe. */
  retry: () => void;
}

export function useUserInputResponse(requestId: string): UserInputResponse {
  const { api, config, model, userInputs } = useServices();
  const [state, setState] = useState<ResponseState>({ phase: 'idle' });
  const inFlight = useRef(false);
  const undoTimer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const pendingUndo = useRef<HeldSend | undefined>(undefined);
  const connection = useSyncExternalStore(
    model.subscribe,
    () => model.getState().connection,
    () => model.getState().connection,
  );

  const send = useCallback(
    (answer: UserInputAnswer, keepalive: boolean) => {
      if (inFlight.current) return;
      inFlight.current = true;
      setState({ phase: 'submitting', answer });
      void postUserInputAnswer(api, requestId, answer, {
        deadlineMs: config.respondDeadlineMs,
        keepalive,
      }).then((outcome) => {
        inFlight.current = false;
        switch (outcome.kind) {
          case 'answered':
            userInputs.update((model) => userInputTransitions.view(model, outcome.request));
            setState({ phase: 'answered', answer });
            return;
          case 'already_settled':
            userInputs.update((model) => userInputTransitions.lostRace(model, requestId, answer));
            setState({ phase: 'already_settled' });
            return;
          case 'agent_exited':
            setState({ phase: 'agent_exited' });
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
  const respond = useCallback(
    (answer: UserInputAnswer) => {
      send(answer, false);
    },
    [send],
  );

  const clearUndo = useCallback(() => {
    clearTimeout(undoTimer.current);
    undoTimer.current = undefined;
    pendingUndo.current = undefined;
  }, []);

  const respondAfterUndo = useCallback(
    (answer: UserInputAnswer) => {
      if (inFlight.current || undoTimer.current !== undefined) return;
      const fire = (keepalive: boolean) => {
        clearUndo();
        send(answer, keepalive);
      };
      setState({ phase: 'undo', answer });
      pendingUndo.current = fire;
      undoTimer.current = setTimeout(() => {
        fire(false);
      }, config.undoWindowMs);
    },
    [clearUndo, config.undoWindowMs, send],
  );

  useSendWhenHidden(pendingUndo);

  const undo = useCallback(() => {
    if (undoTimer.current === undefined) return;
    clearUndo();
    setState({ phase: 'idle' });
  }, [clearUndo]);

  const sendNow = useCallback(() => {
    pendingUndo.current?.(false);
  }, []);

  const retry = useCallback(() => {
    if (state.phase === 'error') respond(state.answer);
  }, [respond, state]);

  // The connection came back: an answer that may never have reached the server goes again.
  const wasLive = useRef(connection === 'live');
  useEffect(() => {
    const back = connection === 'live' && !wasLive.current;
    wasLive.current = connection === 'live';
    if (back && state.phase === 'error') retry();
  }, [connection, retry, state.phase]);

  return { state, respond, respondAfterUndo, undo, sendNow, retry };
}
