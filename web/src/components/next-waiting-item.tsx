/**
 * "Next waiting item": once what this session waited on is answered, the way
 * on to the next thing waiting elsewhere, in triage order. Shown only after
 * this visit saw the session wait, so browsing a session does not offer it.
 */
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { navigate } from '../app/router.js';
import { useTriageItems } from '../hooks/use-triage-items.js';
import { nextWaitingItem } from '../model/triage.js';
import { webSessionPath } from '../../../src/wire/constants.js';

export function NextWaitingItem({ sessionId }: { sessionId: string }) {
  const { t } = useTranslation();
  const items = useTriageItems();
  const waitingHere = items.some((item) => item.session_id === sessionId);
  const [sawWaiting, setSawWaiting] = useState(false);
  useEffect(() => {
    if (waitingHere) setSawWaiting(true);
  }, [waitingHere]);
  const next = nextWaitingItem(items, sessionId);
  if (!sawWaiting || waitingHere) return null;
  if (!next) {
    return (
      <p className="next-waiting muted" role="status" data-testid="next-waiting-none">
        {t('triage.nothingElse')}
      </p>
    );
  }
  const path = webSessionPath(next.session_id);
  return (
    <p className="next-waiting" role="status">
      <a
        href={path}
        className="button button-primary"
        data-testid="next-waiting-item"
        data-session-id={next.session_id}
        onClick={(event) => {
          event.preventDefault();
          navigate(path);
        }}
      >
        {t('triage.next', { task: next.task_title })}
      </a>
    </p>
  );
}
