/**
 * `useMessageHandler(sessionId)`: the one admission path for ordinary user
 * messages, shared by the composer and late answers. Each message has an
 * admission key that stays the same across retries and remounts (kept in the
 * key store until the server accepts it), so the server never adds it twice.
 */
import { useCallback } from 'react';
import { useServices } from '../app/services.js';
import { releaseAdmissionKey } from '../model/late-answer.js';
import { transitions } from '../model/read-model.js';

export type MessageOutcome =
  | { outcome: 'sent' }
  | { outcome: 'queued' }
  /** Refused (the session ended) or uncertain (network, 5xx): the draft and key are kept. */
  | { outcome: 'failed'; reason: 'refused' | 'uncertain' | 'not_found' };

export function useMessageHandler(sessionId: string) {
  const { api, keyStore, model, sync } = useServices();
  return useCallback(
    async (text: string, admissionKey: string, keyScope: string): Promise<MessageOutcome> => {
      const result = await api.sendMessage(sessionId, text, admissionKey);
      if (result.ok) {
        releaseAdmissionKey(keyStore, keyScope);
        model.update((state) => transitions.queueTouched(state, sessionId));
        void sync.refresh();
        return { outcome: result.value.outcome };
      }
      if (result.kind === 'http' && result.status === 409)
        return { outcome: 'failed', reason: 'refused' };
      if (result.kind === 'http' && result.status === 404)
        return { outcome: 'failed', reason: 'not_found' };
      return { outcome: 'failed', reason: 'uncertain' };
    },
    [api, keyStore, model, sessionId, sync],
  );
}
