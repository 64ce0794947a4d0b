/**
 * `useMessageHandler(sessionId)`: the one admission path for ordinary user
 * messages, shared by the composer and late answers. Each message has an
 * admission key that stays the same across retries and remounts (kept in the
 * key store until the server accepts it), so the server never adds it twice.
 *
 * `useLateAnswerSender()` is that path for a late answer: the text is the
 * formatted snapshot and the session is the one the question came from, not
 * whichever session is on screen.
 */
import { useCallback } from 'react';
import { useServices } from '../app/services.js';
import { messageOutcomeOf, type MessageOutcome } from '../model/admission-outcome.js';
import {
  admissionKeyFor,
  formatLateAnswer,
  lateAnswerScope,
  releaseAdmissionKey,
  type AnswerSnapshot,
} from '../model/late-answer.js';

export type { FailureReason, MessageOutcome } from '../model/admission-outcome.js';

type Admit = (
  sessionId: string,
  text: string,
  admissionKey: string,
  keyScope: string,
) => Promise<MessageOutcome>;

function useAdmit(): Admit {
  const { api, keyStore } = useServices();
  return useCallback(
    async (sessionId, text, admissionKey, keyScope) => {
      const result = await api.sendMessage(sessionId, text, admissionKey);
      // The session's events bring what the message changed: no list is read again.
      if (result.ok) releaseAdmissionKey(keyStore, keyScope);
      return messageOutcomeOf(result, text);
    },
    [api, keyStore],
  );
}

export function useMessageHandler(sessionId: string) {
  const admit = useAdmit();
  return useCallback(
    (text: string, admissionKey: string, keyScope: string) =>
      admit(sessionId, text, admissionKey, keyScope),
    [admit, sessionId],
  );
}

export function useLateAnswerSender(): (snapshot: AnswerSnapshot) => Promise<MessageOutcome> {
  const { keyStore } = useServices();
  const admit = useAdmit();
  return useCallback(
    async (snapshot: AnswerSnapshot) => {
      const scope = lateAnswerScope(snapshot.pendingId);
      const sent = await admit(
        snapshot.sessionId,
        formatLateAnswer(snapshot),
        admissionKeyFor(keyStore, scope),
        scope,
      );
      // The key is spent on the earlier text (`admit` released it): the edit is not sent.
      return sent.outcome !== 'failed' && sent.earlier !== undefined
        ? { outcome: 'failed', reason: 'earlier_sent' }
        : sent;
    },
    [admit, keyStore],
  );
}
