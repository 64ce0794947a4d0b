/**
 * The decision log: every decision a person made on what an agent asked,
 * newest first, with who made it, where and when, narrowed by task, kind,
 * person and dates, and exported as CSV (every page of the filtered log).
 * Read-only; a row opens its session.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { navigate } from '../app/router.js';
import { useServices } from '../app/services.js';
import type { DecisionFilter } from '../model/api.js';
import { allDecisions, decisionsCsv } from '../model/decision-csv.js';
import type { DecisionEntry } from '../model/types.js';
import { DecidedBy } from './decision-record.js';
import { filterOf, rangeInverted, type FilterFields } from '../model/decision-filter.js';
import { DecisionFilters } from './decision-filters.js';
import { UserText } from './user-text.js';
import { webSessionPath } from '../../../src/wire/constants.js';

const RANGE_INVERTED_ID = 'decisions-range-inverted';

type Load = { phase: 'loading' } | { phase: 'failed' } | { phase: 'ready' };

export function DecisionLog() {
  const { t } = useTranslation();
  const { api } = useServices();
  const [entries, setEntries] = useState<DecisionEntry[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [load, setLoad] = useState<Load>({ phase: 'loading' });
  const [fields, setFields] = useState<FilterFields>({});
  const [people, setPeople] = useState<Record<string, string>>({});
  const [exporting, setExporting] = useState<'idle' | 'running' | 'failed'>('idle');
  const filter: DecisionFilter = filterOf(fields);
  const filterKey = JSON.stringify(filter);
  // "To" before "from": nothing can match, and nothing is read (no end is dropped instead).
  const inverted = rangeInverted(fields);
  // Only the newest request may fill the list: a reply to an older filter arrives too late.
  const latest = useRef(0);

  const fetchPage = useCallback(
    async (cursor?: string) => {
      const mine = ++latest.current;
      setLoad({ phase: 'loading' });
      const result = await api.decisions(cursor, JSON.parse(filterKey) as DecisionFilter);
      if (mine !== latest.current) return;
      if (!result.ok) {
        setLoad({ phase: 'failed' });
        return;
      }
      const page = result.value.decisions;
      setEntries((shown) => (cursor === undefined ? page : [...shown, ...page]));
      setPeople((known) => {
        const added = page.filter((entry) => known[entry.responded_by.user_id] === undefined);
        if (added.length === 0) return known;
        const more = Object.fromEntries(
          added.map((entry) => [entry.responded_by.user_id, entry.responded_by.name]),
        );
        return { ...known, ...more };
      });
      setNext(result.value.next_cursor);
      setLoad({ phase: 'ready' });
    },
    [api, filterKey],
  );

  useEffect(() => {
    if (!inverted) {
      void fetchPage();
      return;
    }
    // A reply still on its way for the filter before must not fill the list.
    latest.current++;
    setEntries([]);
    setNext(null);
    setLoad({ phase: 'ready' });
  }, [fetchPage, inverted]);

  const exportCsv = async () => {
    if (exporting === 'running') return;
    setExporting('running');
    const all = await allDecisions(api, filter);
    if (!all) {
      setExporting('failed');
      return;
    }
    const url = URL.createObjectURL(
      new Blob([decisionsCsv(all)], { type: 'text/csv;charset=utf-8' }),
    );
    const link = document.createElement('a');
    link.href = url;
    link.download = 'clarion-decisions.csv';
    link.click();
    setTimeout(() => {
      URL.revokeObjectURL(url);
    }, 0);
    setExporting('idle');
  };

  return (
    <section
      className="decision-log"
      data-testid="decision-log"
      aria-busy={load.phase === 'loading'}
    >
      <h1 className="page-title">{t('decisions.title')}</h1>
      <p className="muted">{t('decisions.explain')}</p>
      <DecisionFilters
        fields={fields}
        people={people}
        onChange={setFields}
        rangeInvertedId={inverted ? RANGE_INVERTED_ID : undefined}
      />
      <p>
        <button
          type="button"
          className="button"
          data-testid="decisions-export"
          // Running, aria-disabled: `disabled` would drop the keyboard focus on it to the body.
          aria-disabled={exporting === 'running' ? true : undefined}
          disabled={inverted}
          onClick={() => void exportCsv()}
        >
          {exporting === 'running' ? t('decisionFilters.exporting') : t('decisionFilters.export')}
        </button>
        {exporting === 'failed' ? (
          <span className="error" role="alert">
            {' '}
            {t('decisionFilters.exportFailed')}
          </span>
        ) : null}
      </p>
      {inverted ? (
        <p
          className="error"
          role="alert"
          id={RANGE_INVERTED_ID}
          data-testid="decisions-range-inverted"
        >
          {t('decisionFilters.rangeInverted')}
        </p>
      ) : load.phase === 'ready' && entries.length === 0 ? (
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
        {entry.session_deleted ? (
          // Its transcript is gone: the log keeps the decision, with nothing to open.
          <span data-testid="decision-session-deleted">
            <UserText text={entry.task_title} /> {t('decisions.sessionDeleted')}
          </span>
        ) : (
          <a
            href={webSessionPath(entry.session_id)}
            onClick={(event) => {
              event.preventDefault();
              navigate(webSessionPath(entry.session_id));
            }}
          >
            <UserText text={entry.task_title} />
          </a>
        )}
      </p>
      <p className="decision-subject">
        <span className="chip">{t(`decisions.kind.${entry.kind}`)}</span>{' '}
        <UserText text={entry.subject} />
      </p>
      <p className="decision-outcome" data-testid="decision-outcome">
        {entry.detail === '' ? (
          outcome
        ) : (
          <>
            {outcome}: <UserText text={entry.detail} />
          </>
        )}
        {entry.always_rule === 'set'
          ? ` ${t('decisions.ruleSet')}`
          : entry.always_rule === 'applied'
            ? ` ${t('decisions.remembered')}`
            : ''}
      </p>
      <DecidedBy value={entry.responded_by} />
    </li>
  );
}
