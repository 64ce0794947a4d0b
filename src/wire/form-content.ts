/**
 * The zod-free half of form requests (issue 13): what a person's answer to a
 * form may hold, the choices of a field, and `validateFormContent`, the one
 * check of an answer against its schema. The server runs it before anything
 * changes; the web app runs the same code to word its messages.
 *
 * Invariants: pure and total; accepted content holds exactly the schema's
 * fields (own keys only, so no prototype key can pass as one).
 */
import type { FormField, FormOption, FormSchema, FormStringFormat } from './forms.js';
import { MAX_FORM_TEXT_CODE_POINTS } from './limits.js';
import { textProblem } from './text.js';

export type FormContentValue = string | number | boolean | string[];
/** A person's answer to a form: one value per field they filled in. */
export type FormContent = Record<string, FormContentValue>;

/** The choices of an enum or multi-select field, titled; empty for other fields. */
export function optionsOf(field: FormField): FormOption[] {
  if (field.type === 'array') {
    const items = field.items;
    return 'anyOf' in items
      ? items.anyOf
      : items.enum.map((value) => ({ const: value, title: value }));
  }
  if (field.type !== 'string') return [];
  if (field.oneOf) return field.oneOf;
  return (field.enum ?? []).map((value, index) => ({
    const: value,
    title: field.enumNames?.[index] ?? value,
  }));
}

// ---------------------------------------------------------------- validation

export const FORM_ERROR_CODES = [
  'not_object',
  'unknown_field',
  'required',
  'not_text',
  'invalid_text',
  'too_short',
  'too_long',
  'not_email',
  'not_uri',
  'not_date',
  'not_date_time',
  'not_number',
  'not_integer',
  'too_small',
  'too_large',
  'not_boolean',
  'not_option',
  'not_options',
  'duplicate',
  'too_few',
  'too_many',
] as const;
export type FormErrorCode = (typeof FORM_ERROR_CODES)[number];

/** One field's problem: `field` is '' when the content as a whole is wrong. */
export interface FormFieldError {
  readonly field: string;
  readonly code: FormErrorCode;
  /** The bound that was crossed (length, value or count), where there is one. */
  readonly limit?: number;
}

export type FormValidation =
  { ok: true; content: FormContent } | { ok: false; errors: FormFieldError[] };

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

function codePoints(value: string): number {
  return Array.from(value).length;
}

function isDate(value: string): boolean {
  const match = DATE.exec(value);
  if (!match) return false;
  const [year, month, day] = match.slice(1).map(Number) as [number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

function formatProblem(format: FormStringFormat, value: string): FormErrorCode | undefined {
  switch (format) {
    case 'email':
      return EMAIL.test(value) ? undefined : 'not_email';
    case 'uri':
      return URL.canParse(value) ? undefined : 'not_uri';
    case 'date':
      return isDate(value) ? undefined : 'not_date';
    case 'date-time':
      return DATE_TIME.test(value) && isDate(value.slice(0, 10)) ? undefined : 'not_date_time';
  }
}

type Check = { code: FormErrorCode; limit?: number } | undefined;

function checkString(field: Extract<FormField, { type: 'string' }>, value: unknown): Check {
  if (typeof value !== 'string') return { code: 'not_text' };
  if (textProblem(value)) return { code: 'invalid_text' };
  const options = optionsOf(field);
  if (options.length > 0) {
    return options.some((option) => option.const === value) ? undefined : { code: 'not_option' };
  }
  const length = codePoints(value);
  const min = field.minLength ?? 0;
  const max = Math.min(field.maxLength ?? MAX_FORM_TEXT_CODE_POINTS, MAX_FORM_TEXT_CODE_POINTS);
  if (length < min) return { code: 'too_short', limit: min };
  if (length > max) return { code: 'too_long', limit: max };
  const code = field.format ? formatProblem(field.format, value) : undefined;
  return code ? { code } : undefined;
}

function checkNumber(
  field: Extract<FormField, { type: 'number' | 'integer' }>,
  value: unknown,
): Check {
  if (typeof value !== 'number' || !Number.isFinite(value)) return { code: 'not_number' };
  if (field.type === 'integer' && !Number.isInteger(value)) return { code: 'not_integer' };
  if (field.minimum != null && value < field.minimum) {
    return { code: 'too_small', limit: field.minimum };
  }
  if (field.maximum != null && value > field.maximum) {
    return { code: 'too_large', limit: field.maximum };
  }
  return undefined;
}

function checkMultiSelect(field: Extract<FormField, { type: 'array' }>, value: unknown): Check {
  if (!Array.isArray(value) || !value.every((entry) => typeof entry === 'string')) {
    return { code: 'not_options' };
  }
  const allowed = new Set(optionsOf(field).map((option) => option.const));
  if (!value.every((entry) => allowed.has(entry))) return { code: 'not_option' };
  if (new Set(value).size !== value.length) return { code: 'duplicate' };
  if (field.minItems != null && value.length < field.minItems) {
    return { code: 'too_few', limit: field.minItems };
  }
  if (field.maxItems != null && value.length > field.maxItems) {
    return { code: 'too_many', limit: field.maxItems };
  }
  return undefined;
}

function checkField(field: FormField, value: unknown): Check {
  switch (field.type) {
    case 'string':
      return checkString(field, value);
    case 'number':
    case 'integer':
      return checkNumber(field, value);
    case 'boolean':
      return typeof value === 'boolean' ? undefined : { code: 'not_boolean' };
    case 'array':
      return checkMultiSelect(field, value);
  }
}

/** Nothing said: an absent value, blank text, or no choice made. */
function isEmpty(value: unknown): boolean {
  if (value === undefined) return true;
  if (typeof value === 'string') return value.trim() === '';
  return Array.isArray(value) && value.length === 0;
}

/**
 * Checks a person's content against the form's schema: every field they give
 * must exist and fit it, every required field must say something (blank text
 * and an empty choice count as nothing; on an optional field, nothing that
 * would not fit is left out). Pure; errors in field order.
 */
export function validateFormContent(schema: FormSchema, content: unknown): FormValidation {
  if (typeof content !== 'object' || content === null || Array.isArray(content)) {
    return { ok: false, errors: [{ field: '', code: 'not_object' }] };
  }
  const given = content as Record<string, unknown>;
  const errors: FormFieldError[] = [];
  const accepted: FormContent = {};
  const required = new Set(schema.required ?? []);
  for (const [name, field] of Object.entries(schema.properties)) {
    const value = Object.hasOwn(given, name) ? given[name] : undefined;
    if (isEmpty(value) && required.has(name)) {
      errors.push({ field: name, code: 'required' });
      continue;
    }
    if (value === undefined) continue;
    const problem = checkField(field, value);
    // Nothing said on an optional field (an untouched multi-select, blank text) is not given:
    // refused against bounds meant for a value, the person could not leave the field out.
    if (problem && isEmpty(value)) continue;
    if (problem) errors.push({ field: name, ...problem });
    else accepted[name] = value as FormContentValue;
  }
  for (const name of Object.keys(given)) {
    if (!Object.hasOwn(schema.properties, name))
      errors.push({ field: name, code: 'unknown_field' });
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, content: accepted };
}

const ERROR_MESSAGES: Record<FormErrorCode, string> = {
  not_object: 'content must be an object of field values',
  unknown_field: 'is not a field of this form',
  required: 'is required',
  not_text: 'must be text',
  invalid_text: 'must be well-formed text without NUL characters',
  too_short: 'is shorter than {limit} characters',
  too_long: 'is longer than {limit} characters',
  not_email: 'must be an email address',
  not_uri: 'must be a URI',
  not_date: 'must be a date (YYYY-MM-DD)',
  not_date_time: 'must be a date and time (RFC 3339)',
  not_number: 'must be a number',
  not_integer: 'must be a whole number',
  too_small: 'must be at least {limit}',
  too_large: 'must be at most {limit}',
  not_boolean: 'must be true or false',
  not_option: 'is not one of the choices',
  not_options: 'must be a list of choices',
  duplicate: 'names a choice twice',
  too_few: 'needs at least {limit} choices',
  too_many: 'allows at most {limit} choices',
};

/** The English line for REST readers and logs; the web app words it from `code` itself. */
export function formErrorMessage(error: FormFieldError): string {
  return ERROR_MESSAGES[error.code].replace('{limit}', String(error.limit ?? ''));
}
