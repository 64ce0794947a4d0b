/**
 * A failed request's reason as a clause in the page's language ("no reply
 * from the server; check the connection"), for the sentences that say an
 * action did not happen: every page says failures this one way, and never
 * shows the browser's English for a lost connection.
 */
import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiFailure } from '../model/api.js';
import { failureReasonOf, refusalReasonOf, type FailureReason } from '../model/failure-reason.js';

type Translate = ReturnType<typeof useTranslation>['t'];

function said(t: Translate, reason: FailureReason): string {
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
}

export function useFailureReason(): (failure: ApiFailure) => string {
  const { t } = useTranslation();
  return useCallback((failure: ApiFailure) => said(t, failureReasonOf(failure)), [t]);
}

/** The same, for a refusal known only by its catalogue code (an answer, a decision, a cancel). */
export function useRefusalReason(): (code: string) => string {
  const { t } = useTranslation();
  return useCallback((code: string) => said(t, refusalReasonOf(code)), [t]);
}
