import { describe, expect, it } from 'vitest';
import {
  MAX_ANSWER_TEXT_CODE_POINTS,
  decide,
  type Decision,
  type Issue,
  type RespondInput,
} from './outcome.js';
import type { Question } from './questions.js';

function q(id: string, optionIds: string[], multiSelect = false): Question {
  return {
    id,
    title: '',
    prompt: `Prompt ${id}`,
    options: optionIds.map((optionId) => ({
      option_id: optionId,
      label: `Label ${optionId}`,
      description: `Description ${optionId}`,
    })),
    multi_select: multiSelect,
  };
}

const single = q('color', ['red', 'green', 'blue']);
const multi = q('langs', ['ts', 'go', 'rust', 'py'], true);
const questions = [single, multi];

function accepted(qs: readonly Question[], input: RespondInput): Decision {
  const result = decide(qs, input);
  if (!result.ok) throw new Error(`expected ok, got ${JSON.stringify(result.issues)}`);
  return result.decision;
}

function refused(qs: readonly Question[], input: RespondInput): Issue[] {
  const result = decide(qs, input);
  if (result.ok) throw new Error(`expected issues, got ${JSON.stringify(result.decision)}`);
  expect(result.issues.length).toBeGreaterThan(0);
  return result.issues;
}

function paths(issues: Issue[]): string[] {
  return issues.map((issue) => issue.path);
}

describe('decide: one answer per question', () => {
  it('accepts exactly one answer per question', () => {
    const decision = accepted(questions, {
      answers: [
        { question_id: 'color', selected_options: ['red'] },
        { question_id: 'langs', selected_options: ['go'] },
      ],
    });
    expect(decision.status).toBe('answered');
    expect(decision.answers).toHaveLength(2);
  });

  it('refuses too few answers', () => {
    const issues = refused(questions, {
      answers: [{ question_id: 'color', selected_options: ['red'] }],
    });
    expect(issues).toEqual([{ path: 'answers', message: 'expected exactly 2 answer(s), got 1' }]);
  });

  it('refuses no answers at all', () => {
    expect(paths(refused(questions, {}))).toEqual(['answers']);
    expect(paths(refused(questions, { answers: [] }))).toEqual(['answers']);
    expect(paths(refused(questions, { rejected: false }))).toEqual(['answers']);
  });

  it('refuses too many answers', () => {
    const issues = refused([single], {
      answers: [
        { question_id: 'color', selected_options: ['red'] },
        { question_id: 'langs', selected_options: ['go'] },
      ],
    });
    expect(issues).toEqual([
      { path: 'answers', message: 'expected exactly 1 answer(s), got 2' },
      { path: 'answers.1.question_id', message: 'is not a question of this bundle' },
    ]);
  });

  it('refuses a question answered twice even when the count matches', () => {
    const issues = refused(questions, {
      answers: [
        { question_id: 'color', selected_options: ['red'] },
        { question_id: 'color', selected_options: ['red'] },
      ],
    });
    expect(issues).toEqual([
      { path: 'answers.1.question_id', message: 'is answered more than once' },
    ]);
  });

  it('refuses an unknown question id', () => {
    const issues = refused(questions, {
      answers: [
        { question_id: 'color', selected_options: ['red'] },
        { question_id: 'size', selected_options: ['go'] },
      ],
    });
    expect(issues).toEqual([
      { path: 'answers.1.question_id', message: 'is not a question of this bundle' },
    ]);
  });
});

describe('decide: options', () => {
  it('refuses an unknown option id', () => {
    const issues = refused([single], {
      answers: [{ question_id: 'color', selected_options: ['purple'] }],
    });
    expect(issues).toEqual([
      { path: 'answers.0.selected_options', message: 'unknown option purple' },
    ]);
  });

  it("refuses another question's option id", () => {
    const issues = refused(questions, {
      answers: [
        { question_id: 'color', selected_options: ['ts'] },
        { question_id: 'langs', selected_options: ['ts'] },
      ],
    });
    expect(issues).toEqual([{ path: 'answers.0.selected_options', message: 'unknown option ts' }]);
  });

  it('reports every unknown option', () => {
    const issues = refused([multi], {
      answers: [{ question_id: 'langs', selected_options: ['ts', 'cobol', 'perl'] }],
    });
    expect(issues.map((issue) => issue.message)).toEqual([
      'unknown option cobol',
      'unknown option perl',
    ]);
  });

  it('refuses two distinct options on a single-select question', () => {
    const issues = refused([single], {
      answers: [{ question_id: 'color', selected_options: ['red', 'blue'] }],
    });
    expect(issues).toEqual([
      { path: 'answers.0.selected_options', message: 'allows only one option' },
    ]);
  });

  it('accepts a duplicated single option and deduplicates it', () => {
    const decision = accepted([single], {
      answers: [{ question_id: 'color', selected_options: ['green', 'green', 'green'] }],
    });
    expect(decision.answers).toEqual([
      { question_id: 'color', selected_options: ['green'], custom_text: '' },
    ]);
  });

  it('accepts several options on a multi-select question', () => {
    const decision = accepted([multi], {
      answers: [{ question_id: 'langs', selected_options: ['ts', 'go', 'rust', 'py'] }],
    });
    expect(decision.answers[0]?.selected_options).toEqual(['ts', 'go', 'rust', 'py']);
  });

  it('orders multi-select options by option position, not click order', () => {
    const decision = accepted([multi], {
      answers: [{ question_id: 'langs', selected_options: ['py', 'ts', 'rust'] }],
    });
    expect(decision.answers[0]?.selected_options).toEqual(['ts', 'rust', 'py']);
  });

  it('deduplicates multi-select options', () => {
    const decision = accepted([multi], {
      answers: [{ question_id: 'langs', selected_options: ['go', 'ts', 'go', 'ts'] }],
    });
    expect(decision.answers[0]?.selected_options).toEqual(['ts', 'go']);
  });

  it('gives the same normalized answer for any click order', () => {
    const orders = [
      ['rust', 'go'],
      ['go', 'rust'],
      ['rust', 'go', 'rust'],
    ];
    const results = orders.map(
      (selected) =>
        accepted([multi], { answers: [{ question_id: 'langs', selected_options: selected }] })
          .answers,
    );
    expect(results[1]).toEqual(results[0]);
    expect(results[2]).toEqual(results[0]);
  });
});

describe('decide: custom text', () => {
  it('accepts custom text alone and trims it', () => {
    const decision = accepted([single], {
      answers: [{ question_id: 'color', custom_text: '  teal, please \n' }],
    });
    expect(decision.answers).toEqual([
      { question_id: 'color', selected_options: [], custom_text: 'teal, please' },
    ]);
  });

  it('accepts an option and custom text together', () => {
    const decision = accepted([single], {
      answers: [{ question_id: 'color', selected_options: ['red'], custom_text: ' dark ' }],
    });
    expect(decision.answers).toEqual([
      { question_id: 'color', selected_options: ['red'], custom_text: 'dark' },
    ]);
  });

  it('accepts an option with blank custom text, normalized to empty', () => {
    const decision = accepted([single], {
      answers: [{ question_id: 'color', selected_options: ['red'], custom_text: '   ' }],
    });
    expect(decision.answers[0]?.custom_text).toBe('');
  });

  it('keeps inner whitespace and newlines', () => {
    const decision = accepted([single], {
      answers: [{ question_id: 'color', custom_text: 'a\n\nb  c' }],
    });
    expect(decision.answers[0]?.custom_text).toBe('a\n\nb  c');
  });

  it.each([
    ['no options and no text', {}],
    ['an empty option list and no text', { selected_options: [] }],
    ['empty text', { custom_text: '' }],
    ['blank text', { custom_text: ' \n\t ' }],
    ['an empty option list and blank text', { selected_options: [], custom_text: '  ' }],
  ])('refuses an answer with %s', (_name, fields) => {
    const issues = refused([single], { answers: [{ question_id: 'color', ...fields }] });
    expect(issues).toEqual([
      { path: 'answers.0', message: 'needs a selected option or custom text' },
    ]);
  });

  it('caps text at 2000 ASCII characters', () => {
    expect(MAX_ANSWER_TEXT_CODE_POINTS).toBe(2000);
    accepted([single], { answers: [{ question_id: 'color', custom_text: 'a'.repeat(2000) }] });
    const issues = refused([single], {
      answers: [{ question_id: 'color', custom_text: 'a'.repeat(2001) }],
    });
    expect(issues).toEqual([
      { path: 'answers.0.custom_text', message: 'must be at most 2000 characters' },
    ]);
  });

  it('counts code points, not UTF-16 units', () => {
    const emoji = '😀';
    expect(emoji.length).toBe(2);
    const atCap = emoji.repeat(2000);
    expect(atCap.length).toBe(4000);
    const decision = accepted([single], {
      answers: [{ question_id: 'color', custom_text: atCap }],
    });
    expect(decision.answers[0]?.custom_text).toBe(atCap);
    expect(
      paths(
        refused([single], {
          answers: [{ question_id: 'color', custom_text: emoji.repeat(2001) }],
        }),
      ),
    ).toEqual(['answers.0.custom_text']);
  });

  it('counts a mix of BMP and astral characters in code points', () => {
    const mixed = 'é😀'.repeat(1000); // 2000 code points, 3000 UTF-16 units
    accepted([single], { answers: [{ question_id: 'color', custom_text: mixed }] });
    expect(
      paths(refused([single], { answers: [{ question_id: 'color', custom_text: `${mixed}x` }] })),
    ).toEqual(['answers.0.custom_text']);
  });
});

describe('decide: rejection', () => {
  it('accepts a bare rejection', () => {
    expect(accepted(questions, { rejected: true })).toEqual({
      status: 'rejected',
      answers: [],
      reject_reason: '',
    });
  });

  it('accepts a rejection with an empty answers list', () => {
    expect(accepted(questions, { rejected: true, answers: [] }).status).toBe('rejected');
  });

  it('keeps a trimmed reject reason', () => {
    const decision = accepted(questions, { rejected: true, reject_reason: '  not now \n' });
    expect(decision).toEqual({ status: 'rejected', answers: [], reject_reason: 'not now' });
  });

  it('refuses answers alongside a rejection', () => {
    const issues = refused(questions, {
      rejected: true,
      answers: [{ question_id: 'color', selected_options: ['red'] }],
    });
    expect(issues).toEqual([{ path: 'answers', message: 'must be empty when rejected' }]);
  });

  it('refuses a reject reason without rejected: true', () => {
    const answers = [
      { question_id: 'color', selected_options: ['red'] },
      { question_id: 'langs', selected_options: ['go'] },
    ];
    for (const input of [
      { answers, reject_reason: 'why' },
      { answers, rejected: false, reject_reason: 'why' },
      { answers, reject_reason: '' },
    ]) {
      expect(refused(questions, input)).toEqual([
        { path: 'reject_reason', message: 'is only allowed with rejected: true' },
      ]);
    }
  });

  it('caps the reject reason in code points', () => {
    accepted(questions, { rejected: true, reject_reason: '😀'.repeat(2000) });
    const issues = refused(questions, { rejected: true, reject_reason: '😀'.repeat(2001) });
    expect(issues).toEqual([{ path: 'reject_reason', message: 'must be at most 2000 characters' }]);
  });

  it('reports an over-long reason and answers together', () => {
    const issues = refused(questions, {
      rejected: true,
      reject_reason: 'x'.repeat(2001),
      answers: [{ question_id: 'color', selected_options: ['red'] }],
    });
    expect(paths(issues)).toEqual(['reject_reason', 'answers']);
  });
});

describe('decide: normalized output', () => {
  it('lists answers in question order whatever order they came in', () => {
    const decision = accepted(questions, {
      answers: [
        { question_id: 'langs', selected_options: ['rust'] },
        { question_id: 'color', custom_text: 'teal' },
      ],
    });
    expect(decision).toEqual({
      status: 'answered',
      reject_reason: '',
      answers: [
        { question_id: 'color', selected_options: [], custom_text: 'teal' },
        { question_id: 'langs', selected_options: ['rust'], custom_text: '' },
      ],
    });
  });

  it('emits exactly question_id, selected_options and custom_text', () => {
    const decision = accepted([single], {
      answers: [{ question_id: 'color', selected_options: ['red'] }],
    });
    expect(Object.keys(decision.answers[0] ?? {}).sort()).toEqual([
      'custom_text',
      'question_id',
      'selected_options',
    ]);
  });

  it('does not mutate its input', () => {
    const input: RespondInput = {
      answers: [{ question_id: 'langs', selected_options: ['py', 'ts', 'py'], custom_text: ' x ' }],
    };
    const copy = structuredClone(input);
    accepted([multi], input);
    expect(input).toEqual(copy);
  });

  it('is deterministic', () => {
    const input: RespondInput = {
      answers: [
        { question_id: 'langs', selected_options: ['py', 'go'] },
        { question_id: 'color', selected_options: ['blue'], custom_text: ' ok ' },
      ],
    };
    expect(decide(questions, input)).toEqual(decide(questions, structuredClone(input)));
  });

  it('needs no answers for an empty question list', () => {
    expect(accepted([], { rejected: true }).status).toBe('rejected');
    expect(accepted([], { answers: [] })).toEqual({
      status: 'answered',
      answers: [],
      reject_reason: '',
    });
  });
});
