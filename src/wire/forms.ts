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
 * holds exactly the schema's fields. The zod-free half (the check, the
 * choices of a field) is `form-content.ts`, which the web app bundles.
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
import { optionsOf } from './form-content.js';
import { isBlankText, labelsReadingTheSame } from './text.js';

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

const fieldName = z.string().min(1).max(MAX_FORM_FIELD_NAME_CHARS);

/**
 * zod's record drops a `__proto__` key, so no field can become a prototype;
 * refused first, so the form is not shown without a field its agent asked for.
 */
const formFields = z.preprocess(
  (value, ctx) => {
    if (typeof value === 'object' && value !== null && Object.hasOwn(value, '__proto__')) {
      ctx.addIssue({
        code: 'custom',
        path: ['__proto__'],
        message: '__proto__ cannot name a field',
      });
    }
    return value;
  },
  z.record(fieldName, formField),
);

export const formSchema = z
  .object({
    type: z.literal('object').default('object'),
    title: label.nullish(),
    description: description.nullish(),
    properties: formFields.default({}),
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
      const field = schema.properties[name] as FormField;
      const problem = fieldProblem(field);
      if (problem) ctx.addIssue({ code: 'custom', path: ['properties', name], message: problem });
      // A choice that shows nothing cannot be chosen knowingly: each is named where it sits.
      const where = titlePaths(field);
      optionsOf(field).forEach((option, index) => {
        if (!isBlankText(option.title)) return;
        ctx.addIssue({
          code: 'custom',
          path: ['properties', name, ...(where[index] ?? [])],
          message: `option ${JSON.stringify(option.const)} has a blank title`,
        });
      });
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
  // Two choices that read the same cannot be told apart by the person choosing.
  const titles = optionsOf(field).map((option) => option.title);
  const alike = labelsReadingTheSame(titles).some((first) => first !== undefined);
  return alike ? 'duplicate option label' : undefined;
}

/** Where each choice's title sits in its field, in the order `optionsOf` lists the choices. */
function titlePaths(field: FormField): (string | number)[][] {
  if (field.type === 'array') {
    const items = field.items;
    return 'anyOf' in items
      ? items.anyOf.map((_, index) => ['items', 'anyOf', index, 'title'])
      : items.enum.map((_, index) => ['items', 'enum', index]);
  }
  if (field.type !== 'string') return [];
  if (field.oneOf) return field.oneOf.map((_, index) => ['oneOf', index, 'title']);
  return (field.enum ?? []).map((_, index) =>
    field.enumNames?.[index] === undefined ? ['enum', index] : ['enumNames', index],
  );
}

export const formContentValue = z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]);
export type { FormContentValue } from './form-content.js';
/** A person's answer to a form: one value per field they filled in. */
export const formContent = z.record(z.string(), formContentValue).meta({ id: 'FormContent' });
export type { FormContent } from './form-content.js';
