/**
 * Form requests on the wire (issue 13): the flat JSON Schema an agent's
 * form elicitation carries (MCP's restricted elicitation schema, as ACP's
 * `ElicitationSchema`), the content a person sends back, and the one check
 * of that content against its schema, shared by the server and the web app.
 *
 * Invariants: a schema that parses here is renderable (every field is one of
 * the kinds below, every `required` name is a field, limits hold); unknown
 * keywords are dropped rather than trusted (`pattern` is never run: an
 * agent's regular expression is not evaluated on the server or in the
 * browser); `validateFormContent` is pure and total, and its accepted content
 * holds exactly the schema's fields.
 */
import { z } from 'zod';
import {
  MAX_FORM_DESCRIPTION_CHARS,
  MAX_FORM_FIELD_NAME_CHARS,
  MAX_FORM_FIELDS,
  MAX_FORM_LABEL_CHARS,
  MAX_FORM_OPTION_CHARS,
  MAX_FORM_OPTIONS,
  MAX_FORM_TEXT_CODE_POINTS,
} from './limits.js';
import { textProblem } from './text.js';

export const FORM_STRING_FORMATS = ['email', 'uri', 'date', 'date-time'] as const;
export type FormStringFormat = (typeof FORM_STRING_FORMATS)[number];

/** What a person may answer a form with: send its content, or decline it. */
export const FORM_DECISIONS = ['accept', 'decline'] as const;
export const formDecision = z.enum(FORM_DECISIONS);
export type FormDecision = z.infer<typeof formDecision>;

const label = z.string().max(MAX_FORM_LABEL_CHARS);
const description = z.string().max(MAX_FORM_DESCRIPTION_CHARS);
const optionValue = z.string().min(1).max(MAX_FORM_OPTION_CHARS);
const count = z.number().int().min(0).max(MAX_FORM_TEXT_CODE_POINTS);
const bound = z.number().refine(Number.isFinite, 'must be a finite number');

/** A titled choice (`oneOf` of a single select, `anyOf` of a multi-select). */
export const formOption = z.object({
  const: optionValue,
  title: label,
  description: description.nullish(),
});
export type FormOption = z.infer<typeof formOption>;

const fieldText = { title: label.nullish(), description: description.nullish() };

const stringField = z.object({
  type: z.literal('string'),
  ...fieldText,
  minLength: count.nullish(),
  maxLength: count.nullish(),
  format: z.enum(FORM_STRING_FORMATS).nullish(),
  default: z.string().max(MAX_FORM_TEXT_CODE_POINTS).nullish(),
  /** A single select: plain values, optionally with display names in the same order. */
  enum: z.array(optionValue).min(1).max(MAX_FORM_OPTIONS).nullish(),
  enumNames: z.array(label).max(MAX_FORM_OPTIONS).nullish(),
  /** A single select with titled options. */
  oneOf: z.array(formOption).min(1).max(MAX_FORM_OPTIONS).nullish(),
});

const numberFields = {
  ...fieldText,
  minimum: bound.nullish(),
  maximum: bound.nullish(),
  default: bound.nullish(),
};
const numberField = z.object({ type: z.literal('number'), ...numberFields });
const integerField = z.object({ type: z.literal('integer'), ...numberFields });

const booleanField = z.object({
  type: z.literal('boolean'),
  ...fieldText,
  default: z.boolean().nullish(),
});

const multiSelectItems = z.union([
  z.object({
    type: z.literal('string').optional(),
    enum: z.array(optionValue).min(1).max(MAX_FORM_OPTIONS),
  }),
  z.object({
    type: z.literal('string').optional(),
    anyOf: z.array(formOption).min(1).max(MAX_FORM_OPTIONS),
  }),
]);

const multiSelectField = z.object({
  type: z.literal('array'),
  ...fieldText,
  minItems: z.number().int().min(0).max(MAX_FORM_OPTIONS).nullish(),
  maxItems: z.number().int().min(0).max(MAX_FORM_OPTIONS).nullish(),
  items: multiSelectItems,
  default: z.array(optionValue).max(MAX_FORM_OPTIONS).nullish(),
});

export const formField = z.discriminatedUnion('type', [
  stringField,
  numberField,
  integerField,
  booleanField,
  multiSelectField,
]);
export type FormField = z.infer<typeof formField>;

// zod's record drops a `__proto__` key, so no field can become a prototype.
const fieldName = z.string().min(1).max(MAX_FORM_FIELD_NAME_CHARS);

export const formSchema = z
  .object({
    type: z.literal('object').default('object'),
    title: label.nullish(),
    description: description.nullish(),
    properties: z.record(fieldName, formField).default({}),
    required: z.array(fieldName).max(MAX_FORM_FIELDS).nullish(),
  })
  .superRefine((schema, ctx) => {
    const names = Object.keys(schema.properties);
    if (names.length > MAX_FORM_FIELDS) {
      ctx.addIssue({
        code: 'custom',
        path: ['properties'],
        message: `at most ${MAX_FORM_FIELDS} fields`,
      });
    }
    for (const name of schema.required ?? []) {
      if (!Object.hasOwn(schema.properties, name)) {
        ctx.addIssue({ code: 'custom', path: ['required'], message: `${name} is not a field` });
      }
    }
    for (const name of names) {
      const problem = fieldProblem(schema.properties[name] as FormField);
      if (problem) ctx.addIssue({ code: 'custom', path: ['properties', name], message: problem });
    }
  })
  .meta({ id: 'FormSchema' });
export type FormSchema = z.infer<typeof formSchema>;

function fieldProblem(field: FormField): string | undefined {
  switch (field.type) {
    case 'string': {
      if (field.enum && field.oneOf) return 'give enum or oneOf, not both';
      if (field.enumNames && field.enumNames.length !== field.enum?.length) {
        return 'enumNames must name each enum value';
      }
      const values = field.oneOf?.map((option) => option.const) ?? field.enum;
      if (values && new Set(values).size !== values.length) return 'duplicate option';
      if ((field.minLength ?? 0) > (field.maxLength ?? MAX_FORM_TEXT_CODE_POINTS)) {
        return 'minLength exceeds maxLength';
      }
      break;
    }
    case 'number':
    case 'integer':
      if ((field.minimum ?? -Infinity) > (field.maximum ?? Infinity)) {
        return 'minimum exceeds maximum';
      }
      break;
    case 'array': {
      const values = optionsOf(field).map((option) => option.const);
      if (new Set(values).size !== values.length) return 'duplicate option';
      if ((field.minItems ?? 0) > (field.maxItems ?? MAX_FORM_OPTIONS)) {
        return 'minItems exceeds maxItems';
      }
      break;
    }
    case 'boolean':
      break;
  }
  return undefined;
}

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

export const formContentValue = z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]);
export type FormContentValue = z.infer<typeof formContentValue>;
/** A person's answer to a form: one value per field they filled in. */
export const formContent = z.record(z.string(), formContentValue).meta({ id: 'FormContent' });
export type FormContent = Record<string, FormContentValue>;

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
 * and an empty choice count as nothing). Pure; errors in field order.
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
