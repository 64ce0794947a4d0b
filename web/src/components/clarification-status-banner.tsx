/**
 * `ClarificationStatusBanner`: the one status line of a bundle, on desktop and
 * phone alike: submitting, error with Retry, detached, expired, the winner's
 * answers after a lost race, the undo window of a one-tap answer or Skip,
 * a cancel under way or done, and the late-answer message outcome (including a draft kept because the
 * question settled elsewhere).
 */
import { useTranslation } from 'react-i18next';
import { useSyncExternalStore } from 'react';
import { useModelState, useServices } from '../app/services.js';
import type { ClarificationGroup } from '../hooks/use-clarification-group.js';
import { agentPlaceOf } from '../model/external-session.js';
import { UndoButtons } from './undo-buttons.js';
import { UserText } from './user-text.js';
import { useRefusalReason } from '../hooks/use-failure-reason.js';
import { useDescribeAnswer } from '../hooks/use-describe-answer.js';

/** Until the session says where its agent runs, the banner promises neither a resume nor a wait. */
const DETACHED_WORDING = {
  external: 'banner.detachedExternal',
  clarion: 'banner.detached',
  unknown: 'inbox.detached',
} as const;

export function ClarificationStatusBanner({ group }: { group: ClarificationGroup }) {
  const { t } = useTranslation();
  const refusalReason = useRefusalReason();
  const describeAnswer = useDescribeAnswer();
  const { model } = useServices();
  const connection = useSyncExternalStore(
    model.subscribe,
    () => model.getState().connection,
    () => model.getState().connection,
  );
  const { state, bundle } = group;
  // Nothing resumes an external agent: a detached answer waits for its `wait_for_answer`.
  const place = agentPlaceOf(useModelState(), bundle?.session_id);
  const external = place === 'external';
  switch (state.phase) {
    case 'undo':
      return (
        <div
          className="banner banner-info undo-banner"
          role="status"
          data-testid="clarification-banner"
          data-state="undo"
        >
          <span>
            {state.action.kind === 'skip' ? t('decide.undo.skipping') : t('decide.undo.answering')}
            {state.action.kind === 'answer' ? (
              // What goes, option and typed words alike, so nothing is sent unseen.
              <span className="undo-answers" data-testid="undo-answers">
                {(state.action.body.answers ?? []).map((answer) => (
                  <span key={answer.question_id} className="undo-answer">
                    <UserText
                      text={describeAnswer(
                        group.questions.find((q) => q.question_id === answer.question_id),
                        {
                          selected_options: answer.selected_options ?? [],
                          custom_text: answer.custom_text ?? '',
                        },
                      )}
                    />
                  </span>
                ))}
              </span>
            ) : null}
          </span>
          <UndoButtons undo={group.undo} sendNow={group.sendNow} />
        </div>
      );
    case 'idle':
      return bundle?.detached ? (
        <div
          className="banner banner-info"
          role="status"
          data-testid="clarification-banner"
          data-state="detached"
        >
          {t(DETACHED_WORDING[place])}
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
    case 'error': {
      // Retried on its own when the connection returns (use-clarification-group).
      const waiting =
        connection !== 'live' && state.reason !== 'server' && state.reason !== 'malformed';
      return (
        <div
          className="banner banner-error"
          role="alert"
          data-testid="clarification-banner"
          data-state="error"
          data-waiting={waiting}
        >
          <span>{waiting ? t('decide.errorWaiting') : t('banner.error')}</span>
          <button type="button" className="button button-primary" onClick={group.retry}>
            {t('banner.retry')}
          </button>
        </div>
      );
    }
    case 'refused':
      return (
        <div
          className="banner banner-error"
          role="alert"
          data-testid="clarification-banner"
          data-state="refused"
        >
          <span>{t('banner.refused', { reason: refusalReason(state.code) })}</span>
          <button type="button" className="button" onClick={group.retry}>
            {t('banner.retry')}
          </button>
        </div>
      );
    case 'cancelling':
      return (
        <div
          className="banner banner-info"
          role="status"
          data-testid="clarification-banner"
          data-state="cancelling"
        >
          <span className="spinner" aria-hidden="true" /> {t('questionCancel.cancelling')}
        </div>
      );
    case 'cancelled':
      return (
        <div
          className="banner banner-ok"
          role="status"
          data-testid="clarification-banner"
          data-state="cancelled"
        >
          <span>{t('questionCancel.cancelled')}</span>
          <button type="button" className="button" onClick={group.dismiss}>
            {t('banner.close')}
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
    case 'unavailable':
      return (
        <div
          className="banner banner-warn"
          role="status"
          data-testid="clarification-banner"
          data-state="unavailable"
        >
          <span>{t('banner.unavailable')}</span>
          <button type="button" className="button" onClick={group.dismiss}>
            {t('banner.close')}
          </button>
        </div>
      );
    case 'resolved': {
      const { result } = state;
      if (state.by === 'this_tab') {
        return (
          <div
            className="banner banner-ok"
            role="status"
            data-testid="clarification-banner"
            data-state="resolved"
          >
            <span>
              {result.status === 'rejected'
                ? t('banner.skipped')
                : external && bundle?.detached
                  ? t('banner.answeredKept')
                  : t('banner.answered')}
            </span>
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
          data-by={state.by}
        >
          {result.response.rejected ? (
            <span>{t(`decide.skippedBy.${state.by}`)}</span>
          ) : (
            <div>
              <span>{t(`decide.answeredBy.${state.by}`)}</span>
              <ul className="winner-answers">
                {result.response.answers.map((answer) => {
                  const question = group.questions.find(
                    (q) => q.question_id === answer.question_id,
                  );
                  return (
                    <li key={answer.question_id}>
                      <strong>
                        <UserText text={question?.prompt ?? answer.question_id} />
                      </strong>{' '}
                      <UserText text={describeAnswer(question, answer)} />
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
      const refused = state.message === 'failed' && state.reason === 'refused';
      const earlier = state.message === 'failed' && state.reason === 'earlier_sent';
      // An expired question keeps its one-sentence wording; elsewhere-settled ones say why first.
      const text =
        state.cause === 'expired' && state.message !== 'kept'
          ? {
              sending: t('banner.lateSending'),
              sent: t('banner.lateSent'),
              queued: t('banner.lateQueued'),
              failed: refused
                ? t('banner.lateRefused')
                : earlier
                  ? t('banner.lateEarlier')
                  : t('banner.lateFailed'),
            }[state.message]
          : `${t(`decide.settled.${state.cause}`)} ${
              {
                kept: t('decide.draftKept'),
                sending: t('decide.draftSending'),
                sent: t('decide.draftSent'),
                queued: t('decide.draftQueued'),
                failed: refused
                  ? t('decide.draftRefused')
                  : earlier
                    ? t('decide.draftEarlier')
                    : t('decide.draftFailed'),
              }[state.message]
            }`;
      return (
        <div
          className={`banner ${state.message === 'failed' ? 'banner-error' : 'banner-info'}`}
          role={state.message === 'failed' ? 'alert' : 'status'}
          data-testid="clarification-banner"
          data-state={`late-${state.message}`}
          data-cause={state.cause}
        >
          <span>{text}</span>
          {state.message === 'kept' ? null : state.message === 'failed' ? (
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
