/**
 * The decision log's filter controls: task, kind, person and a date range
 * (local days; "to" includes its day). Each change applies at once. The
 * people offered are the ones the log has shown so far. An `<option>` holds
 * text only, so task titles and names show their bidi controls written out.
 */
import { useTranslation } from 'react-i18next';
import { useModelState } from '../app/services.js';
import { showBidiControls } from '../model/bidi.js';
import type { FilterFields } from '../model/decision-filter.js';
import type { DecisionEntry } from '../model/types.js';

// Every kind of the wire's DECISION_KINDS (not importable here: its module holds schemas).
const KINDS = [
  'question',
  'consent',
  'action',
  'form',
] as const satisfies readonly DecisionEntry['kind'][];

export function DecisionFilters(props: {
  fields: FilterFields;
  people: Record<string, string>;
  /** The id of what says the "To" day is before the "From" day, while it is. */
  rangeInvertedId?: string;
  onChange: (fields: FilterFields) => void;
}) {
  const { t } = useTranslation();
  const tasks = Object.values(useModelState().tasks).sort((a, b) => a.title.localeCompare(b.title));
  const { fields } = props;
  const set = (change: Partial<FilterFields>) => {
    props.onChange({ ...fields, ...change });
  };
  const isKind = (value: string): value is (typeof KINDS)[number] =>
    (KINDS as readonly string[]).includes(value);
  return (
    <form
      className="decision-filters"
      aria-label={t('decisionFilters.title')}
      data-testid="decision-filters"
      onSubmit={(event) => {
        event.preventDefault();
      }}
    >
      <label>
        {t('decisionFilters.task')}
        <select
          data-testid="filter-task"
          value={fields.taskId ?? ''}
          onChange={(event) => {
            set({ taskId: event.target.value || undefined });
          }}
        >
          <option value="">{t('decisionFilters.any')}</option>
          {tasks.map((task) => (
            <option key={task.id} value={task.id}>
              {showBidiControls(task.title)}
            </option>
          ))}
        </select>
      </label>
      <label>
        {t('decisionFilters.kind')}
        <select
          data-testid="filter-kind"
          value={fields.kind ?? ''}
          onChange={(event) => {
            const value = event.target.value;
            set({ kind: isKind(value) ? value : undefined });
          }}
        >
          <option value="">{t('decisionFilters.any')}</option>
          {KINDS.map((kind) => (
            <option key={kind} value={kind}>
              {t(`decisions.kind.${kind}`)}
            </option>
          ))}
        </select>
      </label>
      <label>
        {t('decisionFilters.person')}
        <select
          data-testid="filter-person"
          value={fields.userId ?? ''}
          onChange={(event) => {
            set({ userId: event.target.value || undefined });
          }}
        >
          <option value="">{t('decisionFilters.any')}</option>
          {Object.entries(props.people).map(([id, name]) => (
            <option key={id} value={id}>
              {showBidiControls(name)}
            </option>
          ))}
        </select>
      </label>
      <label>
        {t('decisionFilters.since')}
        <input
          type="date"
          data-testid="filter-since"
          value={fields.fromDay ?? ''}
          max={fields.toDay}
          onChange={(event) => {
            set({ fromDay: event.target.value || undefined });
          }}
        />
      </label>
      <label>
        {t('decisionFilters.until')}
        <input
          type="date"
          data-testid="filter-until"
          value={fields.toDay ?? ''}
          min={fields.fromDay}
          aria-invalid={props.rangeInvertedId === undefined ? undefined : true}
          aria-describedby={props.rangeInvertedId}
          onChange={(event) => {
            set({ toDay: event.target.value || undefined });
          }}
        />
      </label>
      <button
        type="button"
        className="button"
        data-testid="filter-clear"
        onClick={() => {
          props.onChange({});
        }}
      >
        {t('decisionFilters.clear')}
      </button>
    </form>
  );
}
