/**
 * Why a failed session's agent stopped (the exit, the agent's last words on
 * stderr, or its ACP error) and a Restart button; the failure is the page's
 * read (`useSessionFailure`). A session whose person was deleted
 * (`owner_deleted`) can never run again: it says so, and offers no Restart.
 * One whose person was removed from the workspace (`owner_removed`) says so
 * in the page's language and keeps Restart, which works once they are added
 * back (until then it is refused, and says why).
 */
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useServices } from '../app/services.js';
import type { SessionFailureRead } from '../hooks/use-session-failure.js';
import { request, type ApiFailure } from '../model/api.js';
import type { SessionFailure } from '../../../src/wire/index.js';
import { pageFetch } from '../model/page-fetch.js';
import { useBusyAction } from '../hooks/use-busy-action.js';
import { useFailureReason } from '../hooks/use-failure-reason.js';

/** Why a restart did not take, kept as a case rather than a sentence: said in the page's language at each render. */
type RestartRefusal =
  | { kind: 'failedAgain' }
  /** Its person is still not a member of the task's workspace (`owner_removed`). */
  | { kind: 'ownerStillRemoved' }
  | { kind: 'notRestarted'; failure: ApiFailure };

function failureOf(details: unknown): SessionFailure | undefined {
  if (typeof details !== 'object' || details === null || !('failure' in details)) return undefined;
  return (details as { failure?: SessionFailure }).failure;
}

export function SessionFailureBanner(props: { sessionId: string; read: SessionFailureRead }) {
  const { t } = useTranslation();
  const { sync } = useServices();
  const { sessionId, read } = props;
  const { failure, ownerDeleted, failedAgain, refusedForOwner } = read;
  const { busy: restarting, run } = useBusyAction();
  const [refused, setRefused] = useState<RestartRefusal>();
  const reason = useFailureReason();

  const restart = useCallback(async () => {
    const result = await run(() => {
      setRefused(undefined);
      return request(pageFetch, `/api/v1/sessions/${encodeURIComponent(sessionId)}/restart`, {
        method: 'POST',
        body: '{}',
      });
    });
    // A press while one was in flight: that one is answered.
    if (result === undefined) return;
    if (result.ok) {
      await sync.refresh();
      return;
    }
    // Refused before the failure was read: it can never run again, whatever was shown.
    if (result.kind === 'http' && result.code === 'owner_deleted') {
      refusedForOwner();
      return;
    }
    if (result.kind === 'http' && result.code === 'owner_removed') {
      setRefused({ kind: 'ownerStillRemoved' });
      return;
    }
    const again = result.kind === 'http' ? failureOf(result.details) : undefined;
    if (again) failedAgain(again);
    setRefused(again ? { kind: 'failedAgain' } : { kind: 'notRestarted', failure: result });
  }, [failedAgain, refusedForOwner, run, sessionId, sync]);

  // In the page's language: the browser's and the server's own words are English.
  const error =
    refused === undefined
      ? undefined
      : refused.kind === 'failedAgain'
        ? t('session.failure.again')
        : refused.kind === 'ownerStillRemoved'
          ? t('session.failure.ownerStillRemoved')
          : t('session.failure.restartFailed', { reason: reason(refused.failure) });

  return (
    <section
      className="banner banner-error session-failure"
      data-testid="session-failure"
      role="alert"
    >
      <div>
        <strong>{t('session.failure.title')}</strong>
        {ownerDeleted ? (
          <p className="session-failure-message" data-testid="session-failure-message">
            {t('session.failure.ownerDeleted')}
          </p>
        ) : failure?.code === 'owner_removed' ? (
          <p className="session-failure-message" data-testid="session-failure-message">
            {t('session.failure.ownerRemoved')}
          </p>
        ) : failure ? (
          <pre className="session-failure-message" data-testid="session-failure-message">
            {failure.message}
          </pre>
        ) : null}
        {error && !ownerDeleted ? <p className="error">{error}</p> : null}
      </div>
      {ownerDeleted ? null : (
        <button
          type="button"
          className="button button-primary"
          data-testid="session-restart"
          // Not `disabled` while it restarts: that would drop the keyboard's focus on it to the page.
          aria-disabled={restarting}
          onClick={() => void restart()}
        >
          {restarting ? t('session.failure.restarting') : t('session.failure.restart')}
        </button>
      )}
    </section>
  );
}
