/**
 * An agent's form made storable, and a person's content read back in the
 * agent's own words. The form's view is written to the store (the decision's
 * transcript row; with several servers, every replica's copy, read as jsonb),
 * which PostgreSQL refuses with a NUL; so every piece of the agent's text in
 * it, choices and field names too, goes through `storableText`, the rule
 * every agent text follows. A person answers with the storable names and
 * values; the agent must read back exactly the ones it offered.
 *
 * Invariants: pure; `original` is the inverse of the rename on every field
 * name and choice value; a form two of whose names or choices of one field
 * become the same text is refused (undefined), since its answer could not be
 * read back.
 */
import {
  storableText,
  type FormContent,
  type FormField,
  type FormOption,
  type FormSchema,
} from '../wire/index.js';

export interface StorableForm {
  readonly message: string;
  readonly schema: FormSchema;
  /** The person's content with the agent's own field names and choice values. */
  original(content: FormContent): FormContent;
}

/** Storable text to the agent's, for one field's choices or the form's field names. */
type Originals = Map<string, string>;

/** Each text made storable, with the way back; undefined when two become one. */
function renamed(values: readonly string[]): Originals | undefined {
  const originals: Originals = new Map();
  for (const value of values) {
    const kept = storableText(value);
    if (originals.has(kept) && originals.get(kept) !== value) return undefined;
    originals.set(kept, value);
  }
  return originals;
}

const nullable = (value: string | null | undefined) =>
  value == null ? value : storableText(value);

function storableOption(option: FormOption): FormOption {
  return {
    ...option,
    const: storableText(option.const),
    title: storableText(option.title),
    description: nullable(option.description),
  };
}

function storableField(field: FormField): FormField {
  const text = { title: nullable(field.title), description: nullable(field.description) };
  switch (field.type) {
    case 'string':
      return {
        ...field,
        ...text,
        default: nullable(field.default),
        enum: field.enum?.map(storableText),
        enumNames: field.enumNames?.map(storableText),
        oneOf: field.oneOf?.map(storableOption),
      };
    case 'array': {
      const items = field.items;
      return {
        ...field,
        ...text,
        default: field.default?.map(storableText),
        items:
          'anyOf' in items
            ? { ...items, anyOf: items.anyOf.map(storableOption) }
            : { ...items, enum: items.enum.map(storableText) },
      };
    }
    default:
      return { ...field, ...text };
  }
}

/** The values a field's answer may hold, as the agent wrote them. */
function choiceValues(field: FormField): string[] {
  if (field.type === 'array') {
    const items = field.items;
    return 'anyOf' in items ? items.anyOf.map((option) => option.const) : items.enum;
  }
  if (field.type !== 'string') return [];
  return field.oneOf?.map((option) => option.const) ?? field.enum ?? [];
}

export function storableForm(input: {
  message: string;
  schema: FormSchema;
}): StorableForm | undefined {
  const { schema } = input;
  const names = renamed(Object.keys(schema.properties));
  if (!names) return undefined;
  const properties: [string, FormField][] = [];
  const choices = new Map<string, Originals>();
  for (const [name, field] of Object.entries(schema.properties)) {
    const values = renamed(choiceValues(field));
    if (!values) return undefined;
    const kept = storableText(name);
    properties.push([kept, storableField(field)]);
    choices.set(kept, values);
  }
  const back = (values: Originals | undefined, value: string) => values?.get(value) ?? value;
  return {
    message: storableText(input.message),
    schema: {
      ...schema,
      title: nullable(schema.title),
      description: nullable(schema.description),
      // Own keys, whatever a name reads as (`__proto__` too).
      properties: Object.fromEntries(properties),
      required: schema.required?.map(storableText),
    },
    original(content) {
      return Object.fromEntries(
        Object.entries(content).map(([name, value]) => {
          const values = choices.get(name);
          const agents = Array.isArray(value)
            ? value.map((item) => back(values, item))
            : typeof value === 'string'
              ? back(values, value)
              : value;
          return [back(names, name), agents];
        }),
      );
    },
  };
}
