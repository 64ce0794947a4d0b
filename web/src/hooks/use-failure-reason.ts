/**
 * A failed request's reason as a clause in the page's language ("no reply
 * from the server; check the connection"), for the sentences that say an
 * action did not happen: every page says failures this one way, and never
 * shows the browser's English for a lost connection.
 */
import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiFailure } from '../model/api.js';
import { failureReasonOf } from '../model/failure-reason.js';

export function useFailureReason(): (failure: ApiFailure) => string {
  const { t } = useTranslation();
  return useCallback(
    (failure: ApiFailure) => {
      const reason = failureReasonOf(failure);
      switch (reason.kind) {
        case 'other':
          return t('failure.other', { error: reason.error });
        case 'token_limit':
        case 'agents_mine':
        case 'agents_server':
          return t(`failure.${reason.kind}`, { limit: reason.limit });
        default:
          return t(`failure.${reason.kind}`);
      }
    },
    [t],
  );
}
