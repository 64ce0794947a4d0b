/** Request bodies for the hostile suite, by category: valid answers and rejections, and every way a body can be wrong. */
import { ANSWERS } from '../clarification-harness.js';
import { BODY_LIMIT, SHAPES, type Shape } from './world.js';
import { Gen } from './gen.js';

/**
 * Texts no database keeps as sent: NUL (PostgreSQL refuses it) and unpaired
 * surrogates (both drivers store U+FFFD instead). Anywhere in a body they are
 * refused with 400 `invalid_text` before anything else is looked at.
 */
export const DB_HOSTILE_TEXTS: readonly string[] = [
  'nul \u0000 inside',
  'lone high \ud800 surrogate',
  'lone low \udfff surrogate',
  'reversed \udc00\ud800 pair',
];

/** Custom texts a reader would see nothing of: no answer without a selected option. */
export const INVISIBLE_TEXTS: readonly string[] = [
  '\u200b',
  '\u200c\u200d',
  '\u2060',
  '\ufeff\u200b',
  '\u00ad',
  ' \u200b\u3000 ',
  '\u200e\u200f\u202e',
  '\u180e',
  '\u034f',
  '\u3164',
];

/** Texts that are valid custom text or reject reasons (at most 2000 code points, not blank). */
export const ODD_TEXTS: readonly string[] = [
  'and e2e',
  '  padded  ',
  '\u202eRTL override\u202c',
  '\u200fright-to-left mark\u200e',
  'emoji 🦀🧪👩🏽‍💻🏳️‍🌈',
  'e\u0301 combining',
  'zero\u200bwidth',
  'ﾟ･✿ヾ╲(｡◕‿◕｡)╱✿･ﾟ',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '"; DROP TABLE task_session_messages; --',
  '{{7*7}} ${7*7} %s %n',
  '\\u0000 literally',
  'line\nbreak\r\ttab',
  '🦀'.repeat(2000),
  'é'.repeat(2000),
  'x'.repeat(1999) + '🦀',
];

/** Strings that are no question or option ID of any bundle. */
export const HOSTILE_STRINGS: readonly string[] = [
  "' OR 1=1 --",
  '"; DROP TABLE task_session_messages; --',
  "q1' OR '1'='1",
  '$.pending_id',
  '$.question_id',
  '*',
  '%',
  '_',
  '\u0000',
  'q1\u0000',
  'q1_opt1\u0000',
  '\u202eq1',
  'q1\u200b',
  'q1_opt1\u200f',
  'Q1',
  'Q1_OPT1',
  'q1 ',
  ' q1',
  'q１',
  'q1_opt１',
  '../q1',
  '🦀',
  '\ud800',
  'q1\udfff',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'null',
  'undefined',
  'NaN',
  '0',
  '-1',
  'q0',
  'q3',
  'q1_opt0',
  'q1_opt3',
  'q2_opt4',
  'x'.repeat(64),
];

/** What an answer to `shape` looks like when everything about it is right. */
export function validAnswers(g: Gen, shape: Shape): Record<string, unknown> {
  const answers = SHAPES[shape].map((question) => {
    const answer: Record<string, unknown> = { question_id: question.id };
    const mode = g.int(0, 2);
    if (mode !== 1) {
      answer.selected_options = question.multi
        ? g.some(question.options, 6)
        : Array.from({ length: g.int(1, 3) }, () => question.options[0]);
    }
    if (mode !== 0) answer.custom_text = g.pick(ODD_TEXTS);
    return answer;
  });
  const body: Record<string, unknown> = { answers: g.shuffle(answers) };
  if (g.chance(0.2)) body.rejected = false;
  return body;
}

export function validRejection(g: Gen): Record<string, unknown> {
  return g.pick([
    { rejected: true },
    { rejected: true, reject_reason: g.pick(ODD_TEXTS) },
    { rejected: true, answers: [] },
    { rejected: true, reject_reason: '' },
    { rejected: true, reject_reason: '   ' },
  ]);
}

export function anyValid(g: Gen): Record<string, unknown> {
  return g.chance(0.25) ? validRejection(g) : validAnswers(g, g.pick(['parser', 'paint']));
}

export function answersOf(body: Record<string, unknown>): Record<string, unknown>[] {
  return Array.isArray(body.answers) ? (body.answers as Record<string, unknown>[]) : [];
}

/** A valid parser answer with one answer replaced by `replace`. */
export function withAnswer(g: Gen, replace: (answer: Record<string, unknown>) => unknown) {
  const body = validAnswers(g, g.pick(['parser', 'paint']));
  const answers = answersOf(body);
  const index = g.int(0, answers.length - 1);
  const answer = answers[index];
  if (answer) answers[index] = replace({ ...answer }) as Record<string, unknown>;
  return body;
}

export function nested(depth: number, open: string, close: string, inner = ''): string {
  return open.repeat(depth) + inner + close.repeat(depth);
}

export const BODY_WEIGHTS = {
  'invalid-json': 8,
  'wrong-top-level': 5,
  'unknown-field': 8,
  'wrong-field-type': 8,
  'number-for-string': 5,
  'huge-array': 4,
  'deep-nesting': 4,
  'long-string': 5,
  'unicode-edge': 7,
  'foreign-option': 7,
  'duplicate-question': 5,
  'answer-count': 5,
  'rejected-with-answers': 5,
  'text-too-long': 5,
  'proto-key': 6,
  'duplicate-json-key': 4,
  'bad-text': 8,
  binary: 3,
  oversized: 1,
  valid: 14,
} as const;

export type BodyCategory = keyof typeof BODY_WEIGHTS;

export function generateBody(g: Gen, category: BodyCategory): string | Uint8Array | object {
  switch (category) {
    case 'invalid-json': {
      const fixed = [
        '',
        ' ',
        '{',
        '}',
        '{"answers":',
        '{"answers":[}',
        "{'rejected': true}",
        '{"rejected": True}',
        '{"rejected": tru}',
        '{rejected:true}',
        '{"answers":[],}',
        '{"rejected":true,}',
        'NaN',
        'Infinity',
        '-',
        '01',
        '{"a":1}{"b":2}',
        '{"rejected":true} {"rejected":true}',
        '{"answers": [] /* comment */}',
        '{"rejected":true}\u0000',
        '\u0000{"rejected":true}',
        '{"reject_reason":"unterminated}',
        '{"reject_reason":"bad escape \\x41"}',
        '{"reject_reason":"bad escape \\u12"}',
        '{"reject_reason":"raw\u0001control"}',
        '{"rejected":true}\'',
        'undefined',
        '{"answers":[{"question_id":"q1"]}',
      ];
      if (g.chance(0.6)) return g.pick(fixed);
      // A valid body cut short at a random point.
      const text = JSON.stringify(anyValid(g));
      for (;;) {
        const cut = text.slice(0, g.int(0, text.length - 1));
        try {
          JSON.parse(cut);
        } catch {
          return cut;
        }
      }
    }
    case 'wrong-top-level':
      return g.pick([
        '[]',
        JSON.stringify([ANSWERS]),
        JSON.stringify([{ rejected: true }]),
        '0',
        '-1',
        '1e308',
        '1e400',
        '"answers"',
        '"\\ud800"',
        'null',
        'true',
        'false',
        '[[]]',
        JSON.stringify(JSON.stringify({ rejected: true })),
        JSON.stringify(Array.from({ length: g.int(1, 50) }, () => g.int(0, 9))),
      ]);
    case 'unknown-field': {
      const body = anyValid(g);
      const key = g.pick([
        'pending_id',
        'status',
        'claimed',
        'response',
        'question_id',
        'answer',
        'Answers',
        'REJECTED',
        'rejected ',
        '',
        ' ',
        '\u0000',
        '🦀',
        'reject_reason\u200b',
        'answers.0',
        '$where',
        'toString',
        'valueOf',
        'hasOwnProperty',
        '__defineGetter__',
        'k'.repeat(g.int(100, 5000)),
      ]);
      const value = g.pick<unknown>([true, 1, null, 'x', [], {}, { rejected: true }]);
      const answers = answersOf(body);
      const first = answers[0];
      if (first && g.chance(0.5)) {
        // Inside an answer instead of at the top level.
        first[g.pick(['option_ids', 'selected_option', 'customText', 'id', 'status', key])] = value;
      } else {
        body[key] = value;
      }
      return body;
    }
    case 'wrong-field-type': {
      const field = g.pick([
        'answers',
        'rejected',
        'reject_reason',
        'question_id',
        'selected_options',
        'custom_text',
        'item',
      ]);
      switch (field) {
        case 'answers':
          return { answers: g.pick<unknown>(['q1', 5, {}, null, true, { 0: ANSWERS.answers[0] }]) };
        case 'rejected':
          return { rejected: g.pick<unknown>(['true', 1, 0, null, 'yes', [], {}, [true]]) };
        case 'reject_reason':
          return { rejected: true, reject_reason: g.pick<unknown>([5, [], {}, null, false]) };
        case 'question_id':
          return withAnswer(g, (answer) => ({
            ...answer,
            question_id: g.pick<unknown>([null, [], {}, true, '', ['q1']]),
          }));
        case 'selected_options':
          return withAnswer(g, (answer) => ({
            ...answer,
            selected_options: g.pick<unknown>([
              'q1_opt1',
              [null],
              [[]],
              [{}],
              {},
              null,
              [''],
              true,
            ]),
          }));
        case 'custom_text':
          return withAnswer(g, (answer) => ({
            ...answer,
            custom_text: g.pick<unknown>([[], null, {}, true, ['text']]),
          }));
        default:
          return { answers: [g.pick<unknown>(['q1', 5, null, [], true, 'q1_opt1'])] };
      }
    }
    case 'number-for-string':
      return g.pick([
        '{"answers":[{"question_id":1,"selected_options":["q1_opt1"]}]}',
        '{"answers":[{"question_id":"q1","selected_options":[1]},{"question_id":"q2","custom_text":"x"}]}',
        '{"answers":[{"question_id":"q1","custom_text":123},{"question_id":"q2","custom_text":"x"}]}',
        '{"rejected":true,"reject_reason":0}',
        '{"answers":[{"question_id":1e400,"custom_text":"x"}]}',
        '{"answers":[{"question_id":-0,"custom_text":"x"}]}',
        '{"answers":[{"question_id":"q1","selected_options":[1.5e-10]}]}',
        '{"rejected":1}',
        '{"answers":1}',
        '{"answers":[{"question_id":"q1","selected_options":["q1_opt1"]},{"question_id":2,"selected_options":["q2_opt1"]}]}',
      ]);
    case 'huge-array': {
      const kind = g.int(0, 3);
      if (kind === 0) {
        const answer = g.pick(answersOf(validAnswers(g, 'parser')));
        return { answers: Array.from({ length: g.int(5, 600) }, () => answer) };
      }
      if (kind === 1) {
        return withAnswer(g, (answer) => ({
          ...answer,
          selected_options: Array.from({ length: g.int(7, 4000) }, () => 'q2_opt1'),
        }));
      }
      if (kind === 2) return JSON.stringify(Array.from({ length: g.int(1000, 12000) }, () => 0));
      return { rejected: true, answers: Array.from({ length: g.int(5, 1000) }, () => ({})) };
    }
    case 'deep-nesting': {
      const depth = g.pick([64, 512, 2_000, 8_000, 20_000, 30_000]);
      return g.pick([
        nested(depth, '[', ']'),
        `{"answers":${nested(depth, '[', ']')}}`,
        nested(Math.min(depth, 12_000), '{"a":', '}', '1'),
        `{"answers":[{"question_id":${nested(Math.min(depth, 12_000), '{"q":', '}', '"q1"')}}]}`,
        `{"rejected":true,"reject_reason":${nested(depth, '[', ']')}}`,
        `{"answers":[{"question_id":"q1","selected_options":${nested(depth, '[', ']', '"q1_opt1"')}}]}`,
      ]);
    }
    case 'long-string': {
      const kind = g.int(0, 4);
      if (kind === 0) {
        return withAnswer(g, (answer) => ({
          ...answer,
          question_id: 'q'.repeat(g.int(65, 20_000)),
        }));
      }
      if (kind === 1) {
        return withAnswer(g, (answer) => ({
          ...answer,
          selected_options: ['o'.repeat(g.int(65, 20_000))],
        }));
      }
      if (kind === 2) {
        return withAnswer(g, (answer) => ({
          ...answer,
          custom_text: 'x'.repeat(g.int(8_001, 40_000)),
        }));
      }
      if (kind === 3) return { rejected: true, reject_reason: 'r'.repeat(g.int(8_001, 40_000)) };
      // Over 2000 code points, and within 4000 UTF-16 units.
      return withAnswer(g, (answer) => ({
        ...answer,
        custom_text: '🦀'.repeat(g.int(2_001, 4_000)),
      }));
    }
    case 'unicode-edge': {
      const weird = g.pick(HOSTILE_STRINGS);
      const kind = g.int(0, 4);
      if (kind === 0) return withAnswer(g, (answer) => ({ ...answer, question_id: weird }));
      if (kind === 1) {
        return withAnswer(g, (answer) => ({ ...answer, selected_options: [weird] }));
      }
      if (kind === 2) {
        // Raw JSON escapes: lone surrogates and NUL as the JSON text spells them.
        return g.pick([
          '{"answers":[{"question_id":"\\ud800","custom_text":"\\udfff\\ud800"}]}',
          '{"answers":[{"question_id":"q1\\u0000","selected_options":["q1_opt1"]},{"question_id":"q2","custom_text":"x"}]}',
          '{"answers":[{"question_id":"q1","selected_options":["q1_opt1\\u0000"]},{"question_id":"q2","custom_text":"x"}]}',
          '{"answers":[{"question_id":"q1","selected_options":["\\ud83e"]},{"question_id":"q2","custom_text":"\\ud83e\\udd80"}]}',
          '{"\\u0061nswers":[]}',
          '{"answers":[],"reject_reason":"\\u202e\\u0000\\ud800"}',
          '{"rejected":false,"reject_reason":"\\ud800"}',
        ]);
      }
      if (kind === 3) {
        // Text with raw lone surrogates: the client's UTF-8 encoder makes them U+FFFD.
        return `{"answers":[{"question_id":"q\ud8001","custom_text":"\udfff"}]}`;
      }
      // Blank, with no option: spaces that trim removes, and characters nobody sees.
      return withAnswer(g, (answer) => ({
        question_id: answer.question_id,
        custom_text: g.pick([
          '\u3000',
          '\u00a0\u2028\u2029',
          '\ufeff',
          ' \t\n ',
          '',
          ...INVISIBLE_TEXTS,
        ]),
      }));
    }
    case 'foreign-option': {
      const shape = g.pick<Shape>(['parser', 'paint']);
      const other = shape === 'parser' ? 'paint' : 'parser';
      const body = validAnswers(g, shape);
      const answers = answersOf(body);
      const index = g.int(0, answers.length - 1);
      const answer = answers[index];
      const own = SHAPES[shape][0]?.options ?? [];
      const elsewhere = [
        ...SHAPES[other].flatMap((question) => question.options),
        ...SHAPES[shape].flatMap((question) =>
          question.id === answer?.question_id ? [] : question.options,
        ),
      ];
      if (answer) {
        answer.selected_options = g.chance(0.2)
          ? // Two options of a single-select question.
            [own[0], own[1]]
          : g.shuffle([...g.some(elsewhere, 2), ...(g.chance(0.5) ? [own[0]] : [])]);
      }
      return body;
    }
    case 'duplicate-question': {
      const body = validAnswers(g, g.pick(['parser', 'paint']));
      const answers = answersOf(body);
      const first = answers[0];
      const second = answers[1];
      if (!first || !second) return body;
      return {
        answers: g.pick([
          [first, first],
          [second, second],
          [first, first, second],
          [first, second, second, first],
          [first, { ...second, question_id: first.question_id }],
        ]),
      };
    }
    case 'answer-count': {
      const body = validAnswers(g, g.pick(['parser', 'paint']));
      const answers = answersOf(body);
      return g.pick<Record<string, unknown>>([
        {},
        { answers: [] },
        { rejected: false },
        { rejected: false, answers: [] },
        { answers: answers.slice(0, 1) },
        { answers: [...answers, { question_id: 'q3', custom_text: 'x' }] },
        { answers: [...answers, ...answers, answers[0]] },
      ]);
    }
    case 'rejected-with-answers': {
      const body = validAnswers(g, g.pick(['parser', 'paint']));
      return g.pick<Record<string, unknown>>([
        { ...body, rejected: true },
        { ...body, rejected: true, reject_reason: 'both' },
        { rejected: true, answers: answersOf(body).slice(0, 1) },
        { ...body, rejected: false, reject_reason: 'reason without rejecting' },
        { ...body, reject_reason: '' },
        { reject_reason: 'no flag' },
        { rejected: false, reject_reason: 'x' },
      ]);
    }
    case 'text-too-long': {
      const length = g.pick([2_000, 2_001, 2_002, 2_500, 3_999]);
      const unit = g.pick(['x', 'é', '🦀', 'e\u0301']);
      const text = unit === 'e\u0301' ? unit.repeat(Math.ceil(length / 2)) : unit.repeat(length);
      return g.chance(0.3)
        ? { rejected: true, reject_reason: text }
        : withAnswer(g, (answer) => ({ ...answer, custom_text: text }));
    }
    case 'proto-key': {
      const valid = JSON.stringify(validAnswers(g, g.pick(['parser', 'paint']))).slice(1);
      return g.pick([
        '{"__proto__":{"rejected":true}}',
        `{"__proto__":{"rejected":true},${valid}`,
        `{"__proto__":{"polluted":true},${valid}`,
        `{"constructor":{"prototype":{"polluted":true}},${valid}`,
        '{"constructor":{"prototype":{"polluted":true}}}',
        '{"answers":{"__proto__":[]}}',
        '{"answers":[{"__proto__":{"question_id":"q1"},"selected_options":["q1_opt1"]}]}',
        '{"answers":[{"question_id":"q1","selected_options":["q1_opt1"],"__proto__":{"x":1}},{"question_id":"q2","custom_text":"x"}]}',
        '{"rejected":true,"__proto__":null}',
        '{"rejected":true,"prototype":{}}',
        '{"answers":[{"question_id":"__proto__","custom_text":"x"},{"question_id":"constructor","custom_text":"y"}]}',
        '{"answers":[{"question_id":"q1","selected_options":["constructor"]},{"question_id":"q2","selected_options":["__proto__"]}]}',
        '{"rejected":true,"reject_reason":"x","constructor":"y"}',
        '{"__proto__":[]}',
      ]);
    }
    case 'duplicate-json-key': {
      const valid = JSON.stringify(validAnswers(g, g.pick(['parser', 'paint']))).slice(1, -1);
      return g.pick([
        '{"rejected":false,"rejected":true}',
        '{"rejected":true,"rejected":false}',
        `{${valid},"answers":[]}`,
        `{"answers":[],${valid}}`,
        `{"rejected":true,${valid},"rejected":false}`,
        `{"rejected":false,${valid},"rejected":true}`,
        '{"answers":[{"question_id":"q1","question_id":"q9","selected_options":["q1_opt1"]}]}',
      ]);
    }
    case 'bad-text': {
      // One string of an otherwise valid body, or a key, made text no database keeps.
      const bad = g.pick(DB_HOSTILE_TEXTS);
      const body = anyValid(g);
      const answers = answersOf(body);
      const answer = answers.length > 0 ? g.pick(answers) : undefined;
      const where = g.int(0, 4);
      if (where === 0 || !answer) {
        body.reject_reason = bad;
        body.rejected = true;
        delete body.answers;
      } else if (where === 1) {
        answer.custom_text = `${typeof answer.custom_text === 'string' ? answer.custom_text : ''}${bad}`;
      } else if (where === 2) {
        answer.question_id = `${typeof answer.question_id === 'string' ? answer.question_id : ''}${bad}`;
      } else if (where === 3) {
        answer.selected_options = [bad];
      } else {
        body[bad] = true;
      }
      return body;
    }
    case 'binary': {
      const encoder = new TextEncoder();
      const kind = g.int(0, 3);
      if (kind === 0) return Uint8Array.from({ length: g.int(1, 400) }, () => g.int(0, 255));
      if (kind === 1) {
        // UTF-16LE JSON: NULs between the characters once read as UTF-8.
        return new Uint8Array(Buffer.from(JSON.stringify(anyValid(g)), 'utf16le'));
      }
      if (kind === 2) {
        // A broken byte inside a string: not UTF-8, refused (never read as U+FFFD).
        const text = encoder.encode('{"rejected":true,"reject_reason":"x');
        return new Uint8Array([...text, g.pick([0xff, 0xc0, 0xed, 0x80]), ...encoder.encode('"}')]);
      }
      return new Uint8Array([0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf, ...encoder.encode('{}')]);
    }
    case 'oversized': {
      const size = g.int(BODY_LIMIT + 1, BODY_LIMIT * 3);
      return g.pick([
        { rejected: true, reject_reason: 'r'.repeat(size) },
        withAnswer(g, (answer) => ({ ...answer, custom_text: 'x'.repeat(size) })),
        `{"answers":${nested(Math.ceil(size / 2), '[', ']')}}`,
        JSON.stringify(Array.from({ length: Math.ceil(size / 2) }, () => 0)),
        '{'.repeat(size),
      ]);
    }
    case 'valid':
      return anyValid(g);
  }
}
