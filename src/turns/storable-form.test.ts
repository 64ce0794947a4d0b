import { describe, expect, it } from 'vitest';
import { formSchema } from '../wire/index.js';
import { storableForm } from './storable-form.js';

const form = (properties: Record<string, unknown>, required?: string[]) => ({
  message: 'Pick',
  schema: formSchema.parse({ properties, ...(required ? { required } : {}) }),
});

describe('storableForm', () => {
  it('drops NUL from field names and choices, and reads an answer back in the agent’s words', () => {
    const storable = storableForm(
      form(
        {
          'e\u0000nv': { type: 'string', oneOf: [{ const: 'a\u0000', title: 'A' }] },
          tags: { type: 'array', items: { anyOf: [{ const: '\u0000t', title: 'T\u0000' }] } },
          note: { type: 'string', default: 'n\u0000' },
        },
        ['e\u0000nv'],
      ),
    );
    expect(JSON.stringify(storable?.schema)).not.toContain('\\u0000');
    expect(storable?.schema.required).toEqual(['env']);
    expect(storable?.original({ env: 'a', tags: ['t'], note: 'typed a' })).toEqual({
      'e\u0000nv': 'a\u0000',
      tags: ['\u0000t'],
      note: 'typed a',
    });
  });

  it('refuses a form two of whose choices, or names, would read as one', () => {
    expect(storableForm(form({ env: { type: 'string', enum: ['a\u0000', 'a'] } }))).toBeUndefined();
    expect(
      storableForm(form({ 'a\u0000': { type: 'boolean' }, a: { type: 'boolean' } })),
    ).toBeUndefined();
  });

  it('keeps a name that becomes __proto__ as an own field', () => {
    const storable = storableForm(form({ '__proto\u0000__': { type: 'boolean' } }));
    expect(Object.keys(storable?.schema.properties ?? {})).toEqual(['__proto__']);
    expect(
      Object.keys(
        storable?.original(JSON.parse('{"__proto__":true}') as Record<string, boolean>) ?? {},
      ),
    ).toEqual(['__proto\u0000__']);
  });
});
