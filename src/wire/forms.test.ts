import { describe, expect, it } from 'vitest';
import { optionsOf, validateFormContent } from './form-content.js';
import { formSchema, type FormField, type FormSchema } from './forms.js';
import { MAX_FORM_FIELDS, MAX_FORM_TEXT_CODE_POINTS } from './limits.js';

const schema: FormSchema = formSchema.parse({
  type: 'object',
  title: 'Deploy settings',
  properties: {
    name: { type: 'string', title: 'Name', minLength: 2, maxLength: 5 },
    email: { type: 'string', format: 'email' },
    site: { type: 'string', format: 'uri' },
    day: { type: 'string', format: 'date' },
    at: { type: 'string', format: 'date-time' },
    replicas: { type: 'integer', minimum: 1, maximum: 3 },
    ratio: { type: 'number', minimum: 0, maximum: 1 },
    dryRun: { type: 'boolean', default: true },
    env: { type: 'string', enum: ['dev', 'prod'], enumNames: ['Development', 'Production'] },
    region: {
      type: 'string',
      oneOf: [
        { const: 'eu', title: 'Europe' },
        { const: 'us', title: 'US' },
      ],
    },
    tags: {
      type: 'array',
      items: { type: 'string', enum: ['a', 'b', 'c'] },
      minItems: 1,
      maxItems: 2,
    },
    teams: { type: 'array', items: { anyOf: [{ const: 'x', title: 'Team X' }] } },
  },
  required: ['name', 'env'],
});

const valid = { name: 'Ada', env: 'prod' };

function errorsOf(content: unknown) {
  const result = validateFormContent(schema, content);
  return result.ok ? [] : result.errors;
}

describe('formSchema', () => {
  it('parses every field kind and drops keywords it does not render', () => {
    const parsed = formSchema.parse({
      properties: { code: { type: 'string', pattern: '(a+)+$', _meta: { x: 1 } } },
    });
    expect(parsed).toEqual({ type: 'object', properties: { code: { type: 'string' } } });
    expect(Object.keys(schema.properties)).toHaveLength(12);
  });

  it('refuses a field named __proto__, naming it, rather than showing the form without it', () => {
    // As an agent's JSON arrives: an own key, which a record would drop without a word.
    const input: unknown = JSON.parse(
      '{"properties":{"__proto__":{"type":"string"},"name":{"type":"string"}}}',
    );
    expect(formSchema.safeParse(input).error?.issues).toMatchObject([
      { path: ['properties', '__proto__'], message: '__proto__ cannot name a field' },
    ]);
  });

  it('lists the choices of enum, oneOf, enum items and anyOf items with titles', () => {
    const field = (name: string) => schema.properties[name] as FormField;
    expect(optionsOf(field('env'))).toEqual([
      { const: 'dev', title: 'Development' },
      { const: 'prod', title: 'Production' },
    ]);
    expect(optionsOf(field('region')).map((option) => option.title)).toEqual(['Europe', 'US']);
    expect(optionsOf(field('tags')).map((option) => option.const)).toEqual(['a', 'b', 'c']);
    expect(optionsOf(field('teams'))).toEqual([{ const: 'x', title: 'Team X' }]);
    expect(optionsOf(field('name'))).toEqual([]);
  });

  it.each([
    ['an unknown field type', { properties: { f: { type: 'object' } } }],
    ['a required name that is no field', { properties: {}, required: ['ghost'] }],
    [
      'both enum and oneOf',
      { properties: { f: { type: 'string', enum: ['a'], oneOf: [{ const: 'a', title: 'A' }] } } },
    ],
    [
      'enumNames of the wrong length',
      { properties: { f: { type: 'string', enum: ['a', 'b'], enumNames: ['A'] } } },
    ],
    ['duplicate options', { properties: { f: { type: 'string', enum: ['a', 'a'] } } }],
    [
      'options whose names read the same',
      { properties: { f: { type: 'string', enum: ['a', 'b'], enumNames: ['Main', ' main'] } } },
    ],
    [
      'titled options whose titles read the same',
      {
        properties: {
          f: {
            type: 'array',
            items: {
              anyOf: [
                { const: 'a', title: 'Release  branch' },
                { const: 'b', title: 'release\u200b branch' },
              ],
            },
          },
        },
      },
    ],
    [
      'options whose names look alike in another script',
      {
        properties: { f: { type: 'string', enum: ['a', 'b'], enumNames: ['Allow', '\u0410llow'] } },
      },
    ],
    ['minimum above maximum', { properties: { f: { type: 'number', minimum: 2, maximum: 1 } } }],
    [
      'minLength above maxLength',
      { properties: { f: { type: 'string', minLength: 3, maxLength: 1 } } },
    ],
    [
      'a maxLength above the text limit',
      { properties: { f: { type: 'string', maxLength: MAX_FORM_TEXT_CODE_POINTS + 1 } } },
    ],
    [
      'too many fields',
      {
        properties: Object.fromEntries(
          Array.from({ length: MAX_FORM_FIELDS + 1 }, (_, i) => [`f${i}`, { type: 'boolean' }]),
        ),
      },
    ],
    ['a type other than object', { type: 'array', properties: {} }],
  ])('refuses %s', (_, input) => {
    expect(formSchema.safeParse(input).success).toBe(false);
  });

  it('refuses a choice whose title shows nothing, naming its field and the option', () => {
    const issues = (input: unknown) =>
      (formSchema.safeParse(input).error?.issues ?? []).map((issue) => [
        issue.path.join('.'),
        issue.message,
      ]);
    const plan = (field: Record<string, unknown>) => ({ properties: { plan: field } });
    expect(
      issues(
        plan({
          type: 'string',
          oneOf: [
            { const: 'free', title: 'Free' },
            { const: 'team', title: '' },
          ],
        }),
      ),
    ).toEqual([['properties.plan.oneOf.1.title', 'option "team" has a blank title']]);
    // Invisible characters, a Hangul filler and the Braille blank show nothing either.
    expect(
      issues(plan({ type: 'string', enum: ['a', 'b'], enumNames: ['A', '\u200b\u3164 '] })),
    ).toEqual([['properties.plan.enumNames.1', 'option "b" has a blank title']]);
    expect(issues(plan({ type: 'string', enum: ['a', '\u2800'] }))).toEqual([
      ['properties.plan.enum.1', 'option "\u2800" has a blank title'],
    ]);
    expect(
      issues(
        plan({
          type: 'array',
          items: {
            anyOf: [
              { const: 'x', title: '\u00ad' },
              { const: 'y', title: 'Y' },
            ],
          },
        }),
      ),
    ).toEqual([['properties.plan.items.anyOf.0.title', 'option "x" has a blank title']]);
    expect(issues(plan({ type: 'array', items: { enum: ['x', '\t'] } }))).toEqual([
      ['properties.plan.items.enum.1', 'option "\\t" has a blank title'],
    ]);
  });
});

describe('validateFormContent', () => {
  it('accepts content that fits, keeping exactly the fields given', () => {
    const content = {
      ...valid,
      email: 'ada@example.test',
      site: 'https://example.test/x',
      day: '2026-02-28',
      at: '2026-02-28T10:00:00Z',
      replicas: 3,
      ratio: 0.5,
      dryRun: false,
      region: 'eu',
      tags: ['a', 'c'],
      teams: [],
    };
    expect(validateFormContent(schema, content)).toEqual({ ok: true, content });
  });

  it('says which required fields are missing or blank', () => {
    expect(errorsOf({ name: '   ' })).toEqual([
      { field: 'name', code: 'required' },
      { field: 'env', code: 'required' },
    ]);
  });

  it.each([
    [{ name: 'A' }, { field: 'name', code: 'too_short', limit: 2 }],
    [{ name: 'Adalbert' }, { field: 'name', code: 'too_long', limit: 5 }],
    [{ name: 42 }, { field: 'name', code: 'not_text' }],
    [{ name: 'A\u0000b' }, { field: 'name', code: 'invalid_text' }],
    [{ email: 'ada' }, { field: 'email', code: 'not_email' }],
    [{ site: 'not a uri' }, { field: 'site', code: 'not_uri' }],
    [{ day: '2026-02-30' }, { field: 'day', code: 'not_date' }],
    [{ at: '2026-02-28 noon' }, { field: 'at', code: 'not_date_time' }],
    [{ replicas: 1.5 }, { field: 'replicas', code: 'not_integer' }],
    [{ replicas: 0 }, { field: 'replicas', code: 'too_small', limit: 1 }],
    [{ ratio: 2 }, { field: 'ratio', code: 'too_large', limit: 1 }],
    [{ ratio: '0.5' }, { field: 'ratio', code: 'not_number' }],
    [{ dryRun: 'yes' }, { field: 'dryRun', code: 'not_boolean' }],
    [{ env: 'staging' }, { field: 'env', code: 'not_option' }],
    [{ region: 'Europe' }, { field: 'region', code: 'not_option' }],
    [{ tags: 'a' }, { field: 'tags', code: 'not_options' }],
    [{ tags: ['a', 'z'] }, { field: 'tags', code: 'not_option' }],
    [{ tags: ['a', 'a'] }, { field: 'tags', code: 'duplicate' }],
    [{ tags: ['a', 'b', 'c'] }, { field: 'tags', code: 'too_many', limit: 2 }],
    [{ extra: 1 }, { field: 'extra', code: 'unknown_field' }],
  ])('refuses %j', (change, error) => {
    expect(errorsOf({ ...valid, ...change })).toEqual([error]);
  });

  it('an optional field left empty is not given, whatever its bounds say of a value', () => {
    // The web app sends an untouched multi-select as []; blank text is nothing said too.
    expect(validateFormContent(schema, { ...valid, tags: [], email: ' ', day: '' })).toEqual({
      ok: true,
      content: valid,
    });
    // An empty choice its field allows is still said, as before.
    expect(validateFormContent(schema, { ...valid, teams: [] })).toEqual({
      ok: true,
      content: { ...valid, teams: [] },
    });
  });

  it('counts text in code points, not UTF-16 units', () => {
    expect(errorsOf({ ...valid, name: '😀😀😀😀😀' })).toEqual([]);
  });

  it('refuses content that is not an object, and a __proto__ key as an unknown field', () => {
    expect(errorsOf(['Ada'])).toEqual([{ field: '', code: 'not_object' }]);
    expect(errorsOf(null)).toEqual([{ field: '', code: 'not_object' }]);
    const hostile = JSON.parse('{"name":"Ada","env":"dev","__proto__":{"env":"x"}}') as unknown;
    expect(errorsOf(hostile)).toEqual([{ field: '__proto__', code: 'unknown_field' }]);
  });
});
