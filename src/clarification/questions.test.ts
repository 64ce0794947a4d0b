import { describe, expect, it } from 'vitest';
import {
  MAX_CONTEXT_CHARS,
  MAX_OPTION_DESCRIPTION_CHARS as MAX_DESCRIPTION_CHARS,
  MAX_OPTION_LABEL_CHARS as MAX_LABEL_CHARS,
  MAX_OPTIONS,
  MAX_PROMPT_CHARS,
  MAX_QUESTIONS,
  MAX_QUESTION_TITLE_CHARS as MAX_TITLE_CHARS,
  MIN_OPTIONS,
} from '../wire/index.js';
import { normalizeAsk, type AskValidation, type NormalizedAsk } from './questions.js';

type Issues = Extract<AskValidation, { ok: false }>['issues'];

function option(n: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { label: `Label ${n}`, description: `Description ${n}`, ...extra };
}

function question(extra: Record<string, unknown> = {}, optionCount = 2): Record<string, unknown> {
  return {
    prompt: 'Which database?',
    options: Array.from({ length: optionCount }, (_, index) => option(index + 1)),
    ...extra,
  };
}

function ask(questionCount = 1, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    questions: Array.from({ length: questionCount }, (_, index) =>
      question({ prompt: `Prompt ${index + 1}` }),
    ),
    ...extra,
  };
}

function ok(raw: unknown): NormalizedAsk {
  const result = normalizeAsk(raw);
  if (!result.ok) throw new Error(`expected ok, got ${JSON.stringify(result.issues)}`);
  return result.value;
}

function refused(raw: unknown): Issues {
  const result = normalizeAsk(raw);
  if (result.ok) throw new Error(`expected issues, got ${JSON.stringify(result.value)}`);
  expect(result.issues.length).toBeGreaterThan(0);
  for (const issue of result.issues) {
    expect(typeof issue.path).toBe('string');
    expect(typeof issue.message).toBe('string');
  }
  return result.issues;
}

function paths(issues: Issues): string[] {
  return issues.map((issue) => issue.path);
}

describe('normalizeAsk: question count', () => {
  it.each([1, 2, 3, MAX_QUESTIONS])('accepts %i question(s)', (count) => {
    expect(ok(ask(count)).questions).toHaveLength(count);
  });

  it('refuses zero questions', () => {
    expect(paths(refused({ questions: [] }))).toEqual(['questions']);
  });

  it('refuses more than the maximum', () => {
    expect(paths(refused(ask(MAX_QUESTIONS + 1)))).toEqual(['questions']);
  });

  it('refuses a missing questions field', () => {
    expect(paths(refused({}))).toContain('questions');
  });

  it('refuses questions that are not an array', () => {
    expect(paths(refused({ questions: 'q' }))).toEqual(['questions']);
    expect(paths(refused({ questions: { 0: question() } }))).toEqual(['questions']);
  });
});

describe('normalizeAsk: option count', () => {
  it.each([MIN_OPTIONS, 3, 4, 5, MAX_OPTIONS])('accepts %i options', (count) => {
    const value = ok({ questions: [question({}, count)] });
    expect(value.questions[0]?.options).toHaveLength(count);
  });

  it.each([0, 1])('refuses %i option(s)', (count) => {
    expect(paths(refused({ questions: [question({}, count)] }))).toEqual(['questions.0.options']);
  });

  it('refuses more than the maximum', () => {
    expect(paths(refused({ questions: [question({}, MAX_OPTIONS + 1)] }))).toEqual([
      'questions.0.options',
    ]);
  });

  it('refuses a missing options field', () => {
    expect(paths(refused({ questions: [{ prompt: 'p' }] }))).toEqual(['questions.0.options']);
  });

  it('reports the path of the offending question', () => {
    const input = { questions: [question(), question({}, 1)] };
    expect(paths(refused(input))).toEqual(['questions.1.options']);
  });
});

describe('normalizeAsk: labels and descriptions', () => {
  const withFirstOption = (value: Record<string, unknown>) => ({
    questions: [{ prompt: 'p', options: [value, option(2)] }],
  });

  it('refuses a missing label', () => {
    expect(paths(refused(withFirstOption({ description: 'd' })))).toEqual([
      'questions.0.options.0.label',
    ]);
  });

  it('refuses a missing description', () => {
    expect(paths(refused(withFirstOption({ label: 'l' })))).toEqual([
      'questions.0.options.0.description',
    ]);
  });

  it.each(['', '   ', '\n\t '])('refuses an empty or blank label %j', (label) => {
    expect(paths(refused(withFirstOption({ label, description: 'd' })))).toEqual([
      'questions.0.options.0.label',
    ]);
  });

  it.each(['', '   '])('refuses an empty or blank description %j', (description) => {
    expect(paths(refused(withFirstOption({ label: 'l', description })))).toEqual([
      'questions.0.options.0.description',
    ]);
  });

  it('refuses a non-string label', () => {
    expect(paths(refused(withFirstOption({ label: 3, description: 'd' })))).toEqual([
      'questions.0.options.0.label',
    ]);
  });

  it.each(['', '   '])('refuses an empty or blank prompt %j', (prompt) => {
    expect(paths(refused({ questions: [question({ prompt })] }))).toEqual(['questions.0.prompt']);
  });

  it('refuses a missing prompt', () => {
    expect(paths(refused({ questions: [{ options: [option(1), option(2)] }] }))).toEqual([
      'questions.0.prompt',
    ]);
  });
});

describe('normalizeAsk: ids', () => {
  it('defaults question ids to qN and option ids to qN_optM (1-based)', () => {
    const value = ok({
      questions: [question({}, 2), question({}, 3)],
    });
    expect(value.questions.map((q) => q.id)).toEqual(['q1', 'q2']);
    expect(value.questions[0]?.options.map((o) => o.option_id)).toEqual(['q1_opt1', 'q1_opt2']);
    expect(value.questions[1]?.options.map((o) => o.option_id)).toEqual([
      'q2_opt1',
      'q2_opt2',
      'q2_opt3',
    ]);
  });

  it('keeps explicit ids', () => {
    const value = ok({
      questions: [
        {
          id: 'db',
          prompt: 'Which database?',
          options: [option(1, { id: 'pg' }), option(2, { id: 'sqlite' })],
        },
      ],
    });
    expect(value.questions[0]?.id).toBe('db');
    expect(value.questions[0]?.options.map((o) => o.option_id)).toEqual(['pg', 'sqlite']);
  });

  it('numbers defaults by position even when other ids are explicit', () => {
    const value = ok({
      questions: [
        { id: 'first', prompt: 'p', options: [option(1, { id: 'a' }), option(2)] },
        question(),
      ],
    });
    expect(value.questions.map((q) => q.id)).toEqual(['first', 'q2']);
    // Defaults come from the position, never from an explicit question id.
    expect(value.questions[0]?.options.map((o) => o.option_id)).toEqual(['a', 'q1_opt2']);
  });

  it('refuses duplicate explicit question ids', () => {
    const issues = refused({
      questions: [question({ id: 'x' }), question({ id: 'y' }), question({ id: 'x' })],
    });
    expect(issues).toEqual([
      { path: 'questions.2.id', message: 'duplicate question id: the same as questions.0.id' },
    ]);
  });

  it('refuses an explicit question id that collides with a default', () => {
    const issues = refused({ questions: [question({ id: 'q2' }), question()] });
    expect(issues).toEqual([
      { path: 'questions.1.id', message: 'duplicate question id: the same as questions.0.id' },
    ]);
  });

  it('refuses duplicate explicit option ids', () => {
    const issues = refused({
      questions: [
        {
          prompt: 'p',
          options: [option(1, { id: 'a' }), option(2, { id: 'b' }), option(3, { id: 'a' })],
        },
      ],
    });
    expect(issues).toEqual([
      {
        path: 'questions.0.options.2.id',
        message: 'duplicate option id: the same as options.0.id',
      },
    ]);
  });

  it('refuses an explicit option id that collides with a default', () => {
    const issues = refused({
      questions: [question(), { prompt: 'p', options: [option(1, { id: 'q2_opt2' }), option(2)] }],
    });
    expect(issues).toEqual([
      {
        path: 'questions.1.options.1.id',
        message: 'duplicate option id: the same as options.0.id',
      },
    ]);
  });

  it('refuses option labels that read the same, naming the later label', () => {
    const same = { label: 'main', description: 'the release branch' };
    expect(refused({ questions: [{ prompt: 'p', options: [same, same] }] })).toEqual([
      {
        path: 'questions.0.options.1.label',
        message: 'duplicate option label: reads the same as options.0.label',
      },
    ]);
    const alike = [option(1, { label: 'Main' }), option(2), option(3, { label: 'MAIN  ' })];
    expect(paths(refused({ questions: [question(), { prompt: 'p', options: alike }] }))).toEqual([
      'questions.1.options.2.label',
    ]);
    // Labels that differ only in what a reader cannot see or tell apart.
    const spaced = [option(1, { label: 'a b' }), option(2, { label: 'a \u200b  B' })];
    expect(paths(refused({ questions: [{ prompt: 'p', options: spaced }] }))).toEqual([
      'questions.0.options.1.label',
    ]);
    // The same label in different questions is fine.
    const options = [option(1, { label: 'Yes' }), option(2, { label: 'No' })];
    expect(
      ok({ questions: [question({ options }), question({ options })] }).questions,
    ).toHaveLength(2);
  });

  it('allows the same option id in different questions', () => {
    const options = [option(1, { id: 'yes' }), option(2, { id: 'no' })];
    expect(
      ok({ questions: [question({ options }), question({ options })] }).questions,
    ).toHaveLength(2);
  });

  it('reports duplicate option and question ids together', () => {
    const issues = refused({
      questions: [
        { id: 'x', prompt: 'p', options: [option(1, { id: 'a' }), option(2, { id: 'a' })] },
        question({ id: 'x' }),
      ],
    });
    expect(issues).toEqual([
      {
        path: 'questions.0.options.1.id',
        message: 'duplicate option id: the same as options.0.id',
      },
      { path: 'questions.1.id', message: 'duplicate question id: the same as questions.0.id' },
    ]);
  });

  it.each(['', 'has space', 'a/b', 'x'.repeat(65), 'é'])('refuses the malformed id %j', (id) => {
    expect(paths(refused({ questions: [question({ id })] }))).toEqual(['questions.0.id']);
    const badOption = { questions: [{ prompt: 'p', options: [option(1, { id }), option(2)] }] };
    expect(paths(refused(badOption))).toEqual(['questions.0.options.0.id']);
  });

  it.each(['a', 'A-z_0.9', 'x'.repeat(64)])('accepts the id %j', (id) => {
    expect(ok({ questions: [question({ id })] }).questions[0]?.id).toBe(id);
  });
});

describe('normalizeAsk: length caps', () => {
  it('caps the prompt', () => {
    expect(ok({ questions: [question({ prompt: 'p'.repeat(MAX_PROMPT_CHARS) })] })).toBeDefined();
    expect(
      paths(refused({ questions: [question({ prompt: 'p'.repeat(MAX_PROMPT_CHARS + 1) })] })),
    ).toEqual(['questions.0.prompt']);
  });

  it('caps the title', () => {
    expect(ok({ questions: [question({ title: 't'.repeat(MAX_TITLE_CHARS) })] })).toBeDefined();
    expect(
      paths(refused({ questions: [question({ title: 't'.repeat(MAX_TITLE_CHARS + 1) })] })),
    ).toEqual(['questions.0.title']);
  });

  it('caps the label', () => {
    const at = {
      questions: [
        { prompt: 'p', options: [option(1, { label: 'l'.repeat(MAX_LABEL_CHARS) }), option(2)] },
      ],
    };
    const over = {
      questions: [
        {
          prompt: 'p',
          options: [option(1, { label: 'l'.repeat(MAX_LABEL_CHARS + 1) }), option(2)],
        },
      ],
    };
    expect(ok(at)).toBeDefined();
    expect(paths(refused(over))).toEqual(['questions.0.options.0.label']);
  });

  it('caps the description', () => {
    const at = {
      questions: [
        {
          prompt: 'p',
          options: [option(1), option(2, { description: 'd'.repeat(MAX_DESCRIPTION_CHARS) })],
        },
      ],
    };
    const over = {
      questions: [
        {
          prompt: 'p',
          options: [option(1), option(2, { description: 'd'.repeat(MAX_DESCRIPTION_CHARS + 1) })],
        },
      ],
    };
    expect(ok(at)).toBeDefined();
    expect(paths(refused(over))).toEqual(['questions.0.options.1.description']);
  });

  it('caps the context', () => {
    expect(ok(ask(1, { context: 'c'.repeat(MAX_CONTEXT_CHARS) })).context).toHaveLength(
      MAX_CONTEXT_CHARS,
    );
    expect(paths(refused(ask(1, { context: 'c'.repeat(MAX_CONTEXT_CHARS + 1) })))).toEqual([
      'context',
    ]);
  });

  it('measures caps after trimming', () => {
    const padded = `  ${'p'.repeat(MAX_PROMPT_CHARS)}  `;
    expect(ok({ questions: [question({ prompt: padded })] }).questions[0]?.prompt).toBe(
      'p'.repeat(MAX_PROMPT_CHARS),
    );
  });
});

describe('normalizeAsk: strictness', () => {
  it('refuses unknown top-level fields', () => {
    expect(refused(ask(1, { extra: true }))).toHaveLength(1);
  });

  it('refuses unknown question fields', () => {
    expect(paths(refused({ questions: [question({ required: true })] }))).toEqual(['questions.0']);
  });

  it('refuses unknown option fields', () => {
    const input = { questions: [{ prompt: 'p', options: [option(1, { value: 1 }), option(2)] }] };
    expect(paths(refused(input))).toEqual(['questions.0.options.0']);
  });

  it('refuses a non-boolean multi_select', () => {
    expect(paths(refused({ questions: [question({ multi_select: 'yes' })] }))).toEqual([
      'questions.0.multi_select',
    ]);
  });

  it('refuses a non-string context', () => {
    expect(paths(refused(ask(1, { context: 5 })))).toEqual(['context']);
  });
});

describe('normalizeAsk: normalization', () => {
  it('trims prompt, title, label, description and context', () => {
    const value = ok({
      questions: [
        {
          title: '  Title  ',
          prompt: '\n Prompt \t',
          options: [
            { label: '  A ', description: ' first ' },
            { label: 'B', description: 'second' },
          ],
        },
      ],
      context: '  some context \n',
    });
    expect(value.context).toBe('some context');
    expect(value.questions).toEqual([
      {
        id: 'q1',
        title: 'Title',
        prompt: 'Prompt',
        options: [
          { option_id: 'q1_opt1', label: 'A', description: 'first' },
          { option_id: 'q1_opt2', label: 'B', description: 'second' },
        ],
        multi_select: false,
      },
    ]);
  });

  it('keeps inner whitespace', () => {
    const value = ok({ questions: [question({ prompt: 'line one\n\nline  two' })] });
    expect(value.questions[0]?.prompt).toBe('line one\n\nline  two');
  });

  it('defaults title and context to empty strings', () => {
    const value = ok(ask(1));
    expect(value.questions[0]?.title).toBe('');
    expect(value.context).toBe('');
  });

  it('accepts an empty title and context', () => {
    const value = ok(ask(1, { context: '   ' }));
    expect(value.context).toBe('');
    expect(ok({ questions: [question({ title: '' })] }).questions[0]?.title).toBe('');
  });

  it('defaults multi_select to false and keeps explicit values', () => {
    const value = ok({
      questions: [question(), question({ multi_select: true }), question({ multi_select: false })],
    });
    expect(value.questions.map((q) => q.multi_select)).toEqual([false, true, false]);
  });

  it('emits exactly the normalized shape', () => {
    const value = ok(ask(1));
    expect(Object.keys(value).sort()).toEqual(['context', 'fingerprint', 'questions']);
    expect(Object.keys(value.questions[0] ?? {}).sort()).toEqual([
      'id',
      'multi_select',
      'options',
      'prompt',
      'title',
    ]);
    expect(Object.keys(value.questions[0]?.options[0] ?? {}).sort()).toEqual([
      'description',
      'label',
      'option_id',
    ]);
  });

  it('does not mutate its input', () => {
    const input = ask(2, { context: ' c ' });
    const copy = structuredClone(input);
    ok(input);
    expect(input).toEqual(copy);
  });
});

interface OptionIn {
  id: string;
  label: string;
  description: string;
}

interface QuestionIn {
  id: string;
  title: string;
  prompt: string;
  options: OptionIn[];
  multi_select: boolean;
}

interface AskIn {
  questions: QuestionIn[];
  context: string;
}

function firstQuestion(input: AskIn): QuestionIn {
  const first = input.questions[0];
  if (!first) throw new Error('fixture has a first question');
  return first;
}

function firstOption(input: AskIn): OptionIn {
  const first = firstQuestion(input).options[0];
  if (!first) throw new Error('fixture has a first option');
  return first;
}

describe('normalizeAsk: fingerprint', () => {
  const base = (): AskIn => ({
    questions: [
      {
        id: 'db',
        title: 'Database',
        prompt: 'Which database?',
        options: [
          { id: 'pg', label: 'PostgreSQL', description: 'server' },
          { id: 'sqlite', label: 'SQLite', description: 'embedded' },
        ],
        multi_select: false,
      },
      {
        id: 'size',
        title: '',
        prompt: 'Second',
        options: [
          { id: 's', label: 'Small', description: 'small' },
          { id: 'l', label: 'Large', description: 'large' },
        ],
        multi_select: true,
      },
    ],
    context: 'ctx',
  });

  it('is a sha256 hex digest', () => {
    expect(ok(base()).fingerprint).toMatch(/^[0-9a-f]{64}$/);
  });

  it('is equal for identical input', () => {
    expect(ok(base()).fingerprint).toBe(ok(base()).fingerprint);
  });

  it('is equal when inputs differ only in surrounding whitespace', () => {
    const padded = base();
    padded.context = '  ctx  ';
    firstQuestion(padded).prompt = ' Which database?\n';
    expect(ok(padded).fingerprint).toBe(ok(base()).fingerprint);
  });

  it('is equal when defaults are spelled out', () => {
    const implicit = { questions: [question()] };
    const explicit = {
      questions: [
        question({
          id: 'q1',
          title: '',
          multi_select: false,
          options: [option(1, { id: 'q1_opt1' }), option(2, { id: 'q1_opt2' })],
        }),
      ],
      context: '',
    };
    expect(ok(explicit).fingerprint).toBe(ok(implicit).fingerprint);
  });

  const changes: [string, (input: AskIn) => void][] = [
    ['prompt', (input) => void (firstQuestion(input).prompt = 'Which DB?')],
    ['title', (input) => void (firstQuestion(input).title = 'DB')],
    ['context', (input) => void (input.context = 'other')],
    ['context (removed)', (input) => void (input.context = '')],
    ['question id', (input) => void (firstQuestion(input).id = 'database')],
    ['multi_select', (input) => void (firstQuestion(input).multi_select = true)],
    ['option label', (input) => void (firstOption(input).label = 'Postgres')],
    ['option description', (input) => void (firstOption(input).description = 'a server')],
    ['option id', (input) => void (firstOption(input).id = 'postgres')],
    ['option order', (input) => void firstQuestion(input).options.reverse()],
    ['question order', (input) => void input.questions.reverse()],
    [
      'option list (one added)',
      (input) => void firstQuestion(input).options.push({ id: 'x', label: 'X', description: 'x' }),
    ],
    ['question list (one removed)', (input) => void input.questions.pop()],
  ];

  it.each(changes)('differs when the %s changes', (_name, change) => {
    const changed = base();
    change(changed);
    expect(ok(changed).fingerprint).not.toBe(ok(base()).fingerprint);
  });
});

describe('normalizeAsk: non-object input', () => {
  it.each([
    ['null', null],
    ['undefined', undefined],
    ['an array', [question()]],
    ['an empty array', []],
    ['a string', 'questions'],
    ['a number', 42],
    ['a boolean', true],
  ])('gives issues, not an exception, for %s', (_name, raw) => {
    expect(() => normalizeAsk(raw)).not.toThrow();
    expect(refused(raw)).toHaveLength(1);
  });

  it.each([null, 'text', 7, []])('gives issues for a question that is %j', (value) => {
    expect(paths(refused({ questions: [value] }))).toEqual(['questions.0']);
  });

  it.each([null, 'text', 7, []])('gives issues for an option that is %j', (value) => {
    expect(paths(refused({ questions: [{ prompt: 'p', options: [value, option(2)] }] }))).toEqual([
      'questions.0.options.0',
    ]);
  });
});
