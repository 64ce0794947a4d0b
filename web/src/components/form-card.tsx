/**
 * The form part of a user-input card: an agent's form rendered from its flat
 * JSON Schema (text, number, yes/no, single and multiple choice), checked in
 * the browser with the server's own `validateFormContent` before it is sent,
 * then Send or Decline. Once settled it says what became of it.
 *
 * The field values are this card's own draft, not business state: the
 * request's view (and whether it still waits) comes from the read model.
 */
import type { TFunction } from 'i18next';
import { useId, useState, type SyntheticEvent } from 'react';
import { useTranslation } from 'react-i18next';
import {
  optionsOf,
  validateFormContent,
  type FormContent,
  type FormField,
  type FormFieldError,
  type FormSchema,
  type FormView,
} from '../model/types.js';
import { useMe } from '../hooks/use-me.js';
import { showBidiControls } from '../model/bidi.js';
import { isMe } from '../model/responder.js';
import type { UserInputBodyProps } from './user-input-card.js';
import { UserText } from './user-text.js';

/** A field's draft: text as typed (numbers too), a checkbox, or the chosen values. */
type Draft = string | boolean | string[];

/** More choices than this are a drop-down rather than radio buttons. */
const MAX_RADIO_OPTIONS = 5;

function initialDraft(field: FormField): Draft {
  switch (field.type) {
    case 'boolean':
      return field.default ?? false;
    case 'array':
      return field.default ?? [];
    case 'number':
    case 'integer':
      return field.default == null ? '' : String(field.default);
    case 'string':
      return field.default ?? '';
  }
}

/** The content a draft stands for: empty text and numbers are left out, so "required" can say so. */
function contentOf(schema: FormSchema, drafts: Record<string, Draft>): FormContent {
  const content: FormContent = {};
  for (const [name, field] of Object.entries(schema.properties)) {
    const draft = drafts[name];
    if (draft === undefined) continue;
    if (typeof draft !== 'string') content[name] = draft;
    else if (draft.trim() === '') continue;
    else if (field.type === 'number' || field.type === 'integer') {
      // Not a number stays text, so the check names it rather than dropping it.
      content[name] = Number.isNaN(Number(draft)) ? draft : Number(draft);
    } else content[name] = draft;
  }
  return content;
}

export function FormBody(props: UserInputBodyProps<FormView>) {
  const { t } = useTranslation();
  const { view } = props;
  return (
    <>
      <p className="user-input-instructions" data-testid="form-message">
        <UserText text={view.message} />
      </p>
      {props.choices ? <FormFields {...props} /> : <FormOutcome t={t} {...props} />}
    </>
  );
}

function FormFields(props: UserInputBodyProps<FormView>) {
  const { t } = useTranslation();
  const { schema } = props.view;
  const idPrefix = useId();
  const [drafts, setDrafts] = useState<Record<string, Draft>>(() =>
    Object.fromEntries(
      Object.entries(schema.properties).map(([name, field]) => [name, initialDraft(field)]),
    ),
  );
  const [errors, setErrors] = useState<FormFieldError[] | undefined>(undefined);
  const required = new Set(schema.required ?? []);
  const pendingDecision =
    props.pending !== undefined && 'decision' in props.pending ? props.pending.decision : undefined;

  const change = (name: string, draft: Draft) => {
    // The answer on its way carries the values as they were sent: they stay so until it lands.
    if (props.busy) return;
    const next = { ...drafts, [name]: draft };
    setDrafts(next);
    // Once a send was tried, the messages follow the person's corrections.
    if (errors !== undefined) {
      const checked = validateFormContent(schema, contentOf(schema, next));
      setErrors(checked.ok ? [] : checked.errors);
    }
  };

  const submit = (event: SyntheticEvent<HTMLFormElement>) => {
    event.preventDefault();
    // Enter in a field submits too, whatever the button says.
    if (props.busy) return;
    const checked = validateFormContent(schema, contentOf(schema, drafts));
    if (!checked.ok) {
      setErrors(checked.errors);
      const first = checked.errors[0]?.field;
      const form = event.currentTarget;
      if (first !== undefined) {
        form
          .querySelector<HTMLElement>(`[data-field="${CSS.escape(first)}"] :is(input,select)`)
          ?.focus();
      }
      return;
    }
    setErrors([]);
    props.respond({ decision: 'accept', content: checked.content });
  };

  return (
    <form className="form-card-fields" data-testid="form-fields" noValidate onSubmit={submit}>
      {Object.entries(schema.properties).map(([name, field]) => (
        <Field
          key={name}
          id={`${idPrefix}-${name}`}
          name={name}
          field={field}
          required={required.has(name)}
          draft={drafts[name] ?? initialDraft(field)}
          error={errors?.find((entry) => entry.field === name)}
          locked={props.busy}
          onChange={(draft) => {
            change(name, draft);
          }}
        />
      ))}
      <div className="action-buttons">
        <button
          type="submit"
          className="button button-primary"
          data-testid="form-submit"
          // Not `disabled` while an answer goes: the keyboard's focus stays where it pressed.
          aria-disabled={props.busy}
          aria-busy={pendingDecision === 'accept'}
        >
          {t('formCard.submit')}
        </button>
        <button
          type="button"
          className="button"
          data-testid="form-decline"
          aria-disabled={props.busy}
          aria-busy={pendingDecision === 'decline'}
          onClick={() => {
            if (props.busy) return;
            props.respond({ decision: 'decline' });
          }}
        >
          {t('formCard.decline')}
        </button>
      </div>
    </form>
  );
}

interface FieldProps {
  id: string;
  name: string;
  field: FormField;
  required: boolean;
  draft: Draft;
  error: FormFieldError | undefined;
  /**
   * The form is on its way: the field reads unavailable and takes no change, but stays focusable
   * (not `disabled`, which would drop the keyboard's focus on it, and Enter in it sent the form).
   */
  locked: boolean;
  onChange: (draft: Draft) => void;
}

function Field(props: FieldProps) {
  const { t } = useTranslation();
  const { id, field, error } = props;
  const label = field.title ?? props.name;
  const hintId = field.description ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ') || undefined;
  const aria = {
    'aria-disabled': props.locked,
    'aria-describedby': describedBy,
    'aria-invalid': error !== undefined,
    'aria-required': props.required,
  };
  const options = optionsOf(field);
  const grouped =
    field.type === 'array' || (options.length > 0 && options.length <= MAX_RADIO_OPTIONS);
  const title = (
    <>
      <UserText text={label} />
      {props.required ? (
        <span className="form-required" aria-hidden="true" title={t('formCard.required')}>
          {' *'}
        </span>
      ) : null}
    </>
  );
  const details = (
    <>
      {field.description ? (
        <p className="form-hint muted" id={hintId}>
          <UserText text={field.description} />
        </p>
      ) : null}
      {error ? (
        <p className="form-error" id={errorId} data-testid="form-error">
          {t(`formCard.error.${error.code}`, { limit: error.limit })}
        </p>
      ) : null}
    </>
  );

  if (grouped) {
    const multiple = field.type === 'array';
    const draft = props.draft;
    const chosen: string[] = Array.isArray(draft)
      ? draft
      : typeof draft === 'string'
        ? [draft]
        : [];
    return (
      <fieldset
        className="form-field form-choices"
        data-field={props.name}
        data-testid="form-field"
        // A plain group may not carry aria-required (axe: critical); a radio group may.
        role={multiple ? undefined : 'radiogroup'}
        aria-describedby={describedBy}
        aria-invalid={error !== undefined}
        aria-required={multiple ? undefined : props.required}
      >
        <legend className="form-label">
          {title}
          {multiple && props.required ? (
            <span className="sr-only"> ({t('formCard.required')})</span>
          ) : null}
        </legend>
        {options.map((option) => (
          <label key={option.const} className="form-choice">
            <input
              type={multiple ? 'checkbox' : 'radio'}
              name={id}
              value={option.const}
              checked={chosen.includes(option.const)}
              aria-disabled={props.locked}
              onChange={(event) => {
                if (!multiple) props.onChange(option.const);
                else if (event.target.checked) props.onChange([...chosen, option.const]);
                else props.onChange(chosen.filter((value) => value !== option.const));
              }}
            />
            <span>
              <UserText text={option.title} />
              {option.description ? (
                <span className="form-hint muted">
                  {' '}
                  <UserText text={option.description} />
                </span>
              ) : null}
            </span>
          </label>
        ))}
        {details}
      </fieldset>
    );
  }

  if (field.type === 'boolean') {
    return (
      <div className="form-field" data-field={props.name} data-testid="form-field">
        <label className="form-choice" htmlFor={id}>
          <input
            id={id}
            type="checkbox"
            checked={props.draft === true}
            {...aria}
            onChange={(event) => {
              props.onChange(event.target.checked);
            }}
          />
          <span className="form-label">{title}</span>
        </label>
        {details}
      </div>
    );
  }

  const value = typeof props.draft === 'string' ? props.draft : '';
  return (
    <div className="form-field" data-field={props.name} data-testid="form-field">
      <label className="form-label" htmlFor={id}>
        {title}
      </label>
      {options.length > 0 ? (
        <select
          id={id}
          className="form-input"
          value={value}
          {...aria}
          onChange={(event) => {
            props.onChange(event.target.value);
          }}
        >
          <option value="">{t('formCard.choose')}</option>
          {options.map((option) => (
            <option key={option.const} value={option.const}>
              {showBidiControls(option.title)}
            </option>
          ))}
        </select>
      ) : (
        <input
          id={id}
          className="form-input"
          type={inputType(field)}
          inputMode={field.type === 'integer' ? 'numeric' : undefined}
          step={field.type === 'number' ? 'any' : undefined}
          value={value}
          // Typed keys do not even show: nothing is changed while the form goes.
          readOnly={props.locked}
          {...aria}
          onChange={(event) => {
            props.onChange(event.target.value);
          }}
        />
      )}
      {details}
    </div>
  );
}

function inputType(field: FormField): string {
  if (field.type === 'number' || field.type === 'integer') return 'number';
  if (field.type !== 'string') return 'text';
  switch (field.format) {
    case 'email':
      return 'email';
    case 'uri':
      return 'url';
    case 'date':
      return 'date';
    default:
      // `datetime-local` has no zone, which RFC 3339 needs: typed as text.
      return 'text';
  }
}

/** "You sent the form." only to the person who did; everyone else reads who it was. */
function decisionText(t: TFunction, view: FormView, me: string | undefined): string {
  const sent = view.decision === 'accept';
  if (isMe(view.responded_by, me)) {
    return sent ? t('formCard.outcome.sent') : t('formCard.outcome.declined');
  }
  const name = view.responded_by ? showBidiControls(view.responded_by.name) : t('decision.someone');
  return sent ? t('formCard.outcome.sentBy', { name }) : t('formCard.outcome.declinedBy', { name });
}

function FormOutcome(props: UserInputBodyProps<FormView> & { t: TFunction }) {
  const { t, view, outcome } = props;
  const me = useMe();
  let text: string;
  if (view.decision !== null) text = decisionText(t, view, me);
  else if (outcome.kind === 'waiting') return null;
  else if (outcome.kind === 'timed_out') text = t('formCard.outcome.timedOut');
  else if (outcome.kind === 'swept') text = t('userInput.outcome.swept');
  else if (outcome.kind === 'agent_exited') text = t('userInput.outcome.agentExited');
  else if (outcome.kind === 'server_stopped') text = t('userInput.outcome.serverStopped');
  else if (outcome.kind === 'superseded') text = t('userInput.outcome.superseded');
  else text = t('userInput.outcome.closed');
  return (
    <div className="user-input-outcome" data-testid="user-input-outcome">
      <p>{text}</p>
      {view.content !== null ? <SentContent view={view} content={view.content} /> : null}
    </div>
  );
}

function SentContent({ view, content }: { view: FormView; content: FormContent }) {
  const { t } = useTranslation();
  return (
    <dl className="form-sent" data-testid="form-sent">
      {Object.entries(content).map(([name, value]) => {
        const field = view.schema.properties[name];
        const titles = new Map(field ? optionsOf(field).map((o) => [o.const, o.title]) : []);
        const shown = (Array.isArray(value) ? value : [value])
          .map((entry) =>
            typeof entry === 'boolean'
              ? t(entry ? 'formCard.yes' : 'formCard.no')
              : (titles.get(String(entry)) ?? String(entry)),
          )
          .join(t('app.listSeparator'));
        return (
          <div key={name}>
            <dt>
              <UserText text={field?.title ?? name} />
            </dt>
            <dd>
              <UserText text={shown} />
            </dd>
          </div>
        );
      })}
    </dl>
  );
}
