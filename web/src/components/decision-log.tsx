/**
 * The decision log: every decision a person made on what an agent asked,
 * newest first, with who made it, where and when. Read-only; a row opens its
 * session.
 */
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { navigate } from '../app/router.js';
import { useServices } from '../app/services.js';
import type { DecisionEntry } from '../model/types.js';
import { DecidedBy } from './decision-record.js';

type Load = { phase: 'loading' } | { phase: 'failed' } | { phase: 'ready' };

export function DecisionLog() {
  const { t } = useTranslation();
  const { api } = useServices();
  const [entries, setEntries] = useState<DecisionEntry[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [load, setLoad] = useState<Load>({ phase: 'loading' });

  const fetchPage = useCallback(
    async (cursor?: string) => {
      setLoad({ phase: 'loading' });
      const result = await api.decisions(cursor);
      if (!result.ok) {
        setLoad({ phase: 'failed' });
        return;
      }
      setEntries((shown) =>
        cursor === undefined ? result.value.decisions : [...shown, ...result.value.decisions],
      );
      setNext(result.value.next_cursor);
      setLoad({ phase: 'ready' });
    },
    [api],
  );

  useEffect(() => {
    void fetchPage();
  }, [fetchPage]);

  return (
    <section
      className="decision-log"
      data-testid="decision-log"
      aria-busy={load.phase === 'loading'}
    >
      <h1 className="page-title">{t('decisions.title')}</h1>
      <p className="muted">{t('decisions.explain')}</p>
      {load.phase === 'ready' && entries.length === 0 ? (
        <p className="muted" data-testid="decisions-empty">
          {t('decisions.empty')}
        </p>
      ) : null}
      <ul className="decision-list">
        {entries.map((entry) => (
          <DecisionItem key={entry.message_id} entry={entry} />
        ))}
      </ul>
      {load.phase === 'failed' ? (
        <p className="error" role="alert">
          {t('decisions.failed')}{' '}
          <button type="button" className="button" onClick={() => void fetchPage()}>
            {t('decisions.retry')}
          </button>
        </p>
      ) : null}
      {next !== null && load.phase === 'ready' ? (
        <button type="button" className="button" onClick={() => void fetchPage(next)}>
          {t('decisions.more')}
        </button>
      ) : null}
    </section>
  );
}

function DecisionItem({ entry }: { entry: DecisionEntry }) {
  const { t, i18n } = useTranslation();
  const when = new Date(entry.decided_at);
  const outcome = t(`decisions.outcome.${entry.outcome}`);
  return (
    <li className="decision-item" data-testid="decision-item" data-kind={entry.kind}>
      <p className="decision-head">
        <time dateTime={entry.decided_at} title={when.toLocaleString(i18n.resolvedLanguage)}>
          {when.toLocaleString(i18n.resolvedLanguage, { dateStyle: 'short', timeStyle: 'short' })}
        </time>{' '}
        <a
          href={`/sessions/${encodeURIComponent(entry.session_id)}`}
          onClick={(event) => {
            event.preventDefault();
            navigate(`/sessions/${encodeURIComponent(entry.session_id)}`);
          }}
        >
          {entry.task_title}
        </a>
      </p>
      <p className="decision-subject">
        <span className="chip">{t(`decisions.kind.${entry.kind}`)}</span> {entry.subject}
      </p>
      <p className="decision-outcome" data-testid="decision-outcome">
        {entry.detail === '' ? outcome : `${outcome}: ${entry.detail}`}
        {entry.remembered ? ` ${t('decisions.remembered')}` : ''}
      </p>
      <DecidedBy value={entry.responded_by} />
    </li>
  );
}
