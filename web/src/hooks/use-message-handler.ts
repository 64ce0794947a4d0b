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
import {
  admissionKeyFor,
  formatLateAnswer,
  lateAnswerScope,
  releaseAdmissionKey,
  type AnswerSnapshot,
} from '../model/late-answer.js';

export type MessageOutcome =
  | { outcome: 'sent' }
  | { outcome: 'queued' }
  /** Refused (the session ended) or uncertain (network, 5xx): the draft and key are kept. */
  | { outcome: 'failed'; reason: FailureReason };

export type FailureReason = 'refused' | 'uncertain' | 'not_found';

type Admit = (
  sessionId: string,
  text: string,
  admissionKey: string,
  keyScope: string,
) => Promise<MessageOutcome>;

function useAdmit(): Admit {
  const { api, keyStore, sync } = useServices();
  return useCallback(
    async (sessionId, text, admissionKey, keyScope) => {
      const result = await api.sendMessage(sessionId, text, admissionKey);
      if (result.ok) {
        releaseAdmissionKey(keyStore, keyScope);
        void sync.refresh();
        return { outcome: result.value.outcome };
      }
      if (result.kind === 'http' && result.status === 409)
        return { outcome: 'failed', reason: 'refused' };
      if (result.kind === 'http' && result.status === 404)
        return { outcome: 'failed', reason: 'not_found' };
      return { outcome: 'failed', reason: 'uncertain' };
    },
    [api, keyStore, sync],
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
    (snapshot: AnswerSnapshot) => {
      const scope = lateAnswerScope(snapshot.pendingId);
      return admit(
        snapshot.sessionId,
        formatLateAnswer(snapshot),
        admissionKeyFor(keyStore, scope),
        scope,
      );
    },
    [admit, keyStore],
  );
}
