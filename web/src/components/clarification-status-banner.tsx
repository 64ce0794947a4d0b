/**
 * `ClarificationStatusBanner`: the one status line of a bundle, on desktop and
 * phone alike: submitting, error with Retry, detached, expired, the winner's
 * answers after a lost race, and the late-answer message outcome.
 */
import { useTranslation } from 'react-i18next';
import type { ClarificationGroup } from '../hooks/use-clarification-group.js';
import type { BundleQuestion } from '../model/read-model.js';
import type { Answer } from '../model/types.js';

export function describeAnswer(question: BundleQuestion | undefined, answer: Answer): string {
  const labels = answer.selected_options.map(
    (id) => question?.options.find((option) => option.option_id === id)?.label ?? id,
  );
  return [...labels, ...(answer.custom_text ? [`“${answer.custom_text}”`] : [])].join(', ');
}

export function ClarificationStatusBanner({ group }: { group: ClarificationGroup }) {
  const { t } = useTranslation();
  const { state, bundle } = group;
  switch (state.phase) {
    case 'idle':
      return bundle?.detached ? (
        <div
          className="banner banner-info"
          role="status"
          data-testid="clarification-banner"
          data-state="detached"
        >
          {t('banner.detached')}
        </div>
      ) : null;
    case 'submitting':
      return (
        <div
          className="banner banner-info"
          role="status"
          data-testid="clarification-banner"
          data-state="submitting"
        >
          <span className="spinner" aria-hidden="true" /> {t('banner.submitting')}
        </div>
      );
    case 'error':
      return (
        <div
          className="banner banner-error"
          role="alert"
          data-testid="clarification-banner"
          data-state="error"
        >
          <span>{t('banner.error')}</span>
          <button type="button" className="button button-primary" onClick={group.retry}>
            {t('banner.retry')}
          </button>
        </div>
      );
    case 'refused':
      return (
        <div
          className="banner banner-error"
          role="alert"
          data-testid="clarification-banner"
          data-state="refused"
        >
          <span>{t('banner.refused', { code: state.code })}</span>
          <button type="button" className="button" onClick={group.retry}>
            {t('banner.retry')}
          </button>
        </div>
      );
    case 'expired':
      return (
        <div
          className="banner banner-warn"
          role="status"
          data-testid="clarification-banner"
          data-state="expired"
        >
          <span>{t('banner.expired')}</span>
          <button type="button" className="button" onClick={group.dismiss}>
            {t('banner.close')}
          </button>
        </div>
      );
    case 'resolved': {
      const { result } = state;
      if (result.claimed) {
        return (
          <div
            className="banner banner-ok"
            role="status"
            data-testid="clarification-banner"
            data-state="resolved"
          >
            <span>{result.status === 'rejected' ? t('banner.skipped') : t('banner.answered')}</span>
            <button type="button" className="button" onClick={group.dismiss}>
              {t('banner.close')}
            </button>
          </div>
        );
      }
      return (
        <div
          className="banner banner-warn"
          role="status"
          data-testid="clarification-banner"
          data-state="winner"
        >
          {result.response.rejected ? (
            <span>{t('banner.winnerSkipped')}</span>
          ) : (
            <div>
              <span>{t('banner.winner')}</span>
              <ul className="winner-answers">
                {result.response.answers.map((answer) => {
                  const question = group.questions.find(
                    (q) => q.question_id === answer.question_id,
                  );
                  return (
                    <li key={answer.question_id}>
                      <strong>{question?.prompt ?? answer.question_id}</strong>{' '}
                      {describeAnswer(question, answer)}
                    </li>
                  );
                })}
              </ul>
            </div>
          )}
          <button type="button" className="button" onClick={group.dismiss}>
            {t('banner.close')}
          </button>
        </div>
      );
    }
    case 'late': {
      const text = {
        sending: t('banner.lateSending'),
        sent: t('banner.lateSent'),
        queued: t('banner.lateQueued'),
        failed:
          state.message === 'failed' && state.reason === 'refused'
            ? t('banner.lateRefused')
            : t('banner.lateFailed'),
      }[state.message];
      return (
        <div
          className={`banner ${state.message === 'failed' ? 'banner-error' : 'banner-info'}`}
          role={state.message === 'failed' ? 'alert' : 'status'}
          data-testid="clarification-banner"
          data-state={`late-${state.message}`}
        >
          <span>{text}</span>
          {state.message === 'failed' ? (
            <button type="button" className="button button-primary" onClick={group.retry}>
              {t('banner.lateRetry')}
            </button>
          ) : state.message !== 'sending' ? (
            <button type="button" className="button" onClick={group.dismiss}>
              {t('banner.close')}
            </button>
          ) : null}
        </div>
      );
    }
  }
}
