/**
 * The generator behind the hostile-input suite: a seeded PRNG, the body and
 * pending-ID categories, and a small model of the wire contract (the strict
 * body shape and the bundle rules of `decide`) that computes what each case
 * must get back. Shared so the suite itself reads as its scenarios.
 */
import { decide, type RespondInput } from '../../src/clarification/outcome.js';
import type { Question } from '../../src/clarification/questions.js';
import { DEFAULT_MAX_BODY_BYTES } from '../../src/http/request-guards.js';
import { ANSWERS } from './clarification-harness.js';

export const SEED = 0x5eed_c1a7;
export const CASES_PER_DIALECT = 2_400;
export const CONCURRENCY = 8;
export const BODY_LIMIT = DEFAULT_MAX_BODY_BYTES;
export const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
export const NOT_FOUND = { error: 'clarification request not found', code: 'not_found' };
export const NOT_ACTIVE = {
  error: 'clarification request is no longer active',
  code: 'not_active',
};
export const CODE_OF_STATUS: Record<number, string> = {
  400: 'invalid_request',
  404: 'not_found',
  409: 'not_active',
  413: 'payload_too_large',
};

// ---------------------------------------------------------------------------
// The bundles every case aims at.

export type Who = 'member' | 'outsider' | 'agent';
export type RealKey = 'active' | 'superseded' | 'expired' | 'ended' | 'foreign';
export type Shape = 'parser' | 'paint';

/** A second question set, so option IDs of other bundles are at hand. */
export const PAINT = {
  context: 'Painting the shed',
  questions: [
    {
      id: 'colour',
      prompt: 'Which colour?',
      options: [
        { id: 'red', label: 'Red', description: 'warm' },
        { id: 'blue', label: 'Blue', description: 'cold' },
        { id: 'green', label: 'Green', description: 'calm' },
      ],
    },
    {
      id: 'size',
      prompt: 'Which tin sizes?',
      multi_select: true,
      options: [
        { id: 's', label: 'Small', description: '1 l' },
        { id: 'm', label: 'Medium', description: '2.5 l' },
        { id: 'l', label: 'Large', description: '5 l' },
      ],
    },
  ],
};

export interface ShapeQuestion {
  id: string;
  options: readonly string[];
  multi: boolean;
}

export const SHAPES: Record<Shape, readonly ShapeQuestion[]> = {
  parser: [
    { id: 'q1', options: ['q1_opt1', 'q1_opt2'], multi: false },
    { id: 'q2', options: ['q2_opt1', 'q2_opt2', 'q2_opt3'], multi: true },
  ],
  paint: [
    { id: 'colour', options: ['red', 'blue', 'green'], multi: false },
    { id: 'size', options: ['s', 'm', 'l'], multi: true },
  ],
};

export const SHAPE_OF: Record<RealKey, Shape> = {
  active: 'parser',
  superseded: 'parser',
  expired: 'paint',
  ended: 'parser',
  foreign: 'parser',
};

/** Who may see each bundle: the agent only its own session, nobody the other workspace's. */
export const VISIBLE_TO: Record<RealKey, readonly Who[]> = {
  active: ['member', 'agent'],
  superseded: ['member', 'agent'],
  expired: ['member'],
  ended: ['member'],
  foreign: [],
};

export const REAL_KEYS: readonly RealKey[] = [
  'active',
  'superseded',
  'expired',
  'ended',
  'foreign',
];

// ---------------------------------------------------------------------------
// Deterministic generation.

export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Gen {
  private readonly next: () => number;
  constructor(seed: number) {
    this.next = mulberry32(seed);
  }
  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  chance(probability: number): boolean {
    return this.next() < probability;
  }
  pick<T>(items: readonly T[]): T {
    const item = items[this.int(0, items.length - 1)];
    if (item === undefined) throw new Error('pick from an empty list');
    return item;
  }
  weighted<T extends string>(weights: Readonly<Record<T, number>>): T {
    const entries = Object.entries(weights) as [T, number][];
    const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
    let roll = this.next() * total;
    for (const [key, weight] of entries) {
      roll -= weight;
      if (roll < 0) return key;
    }
    const last = entries[entries.length - 1];
    if (!last) throw new Error('no weights');
    return last[0];
  }
  shuffle<T>(items: readonly T[]): T[] {
    const copy = [...items];
    for (let index = copy.length - 1; index > 0; index--) {
      const other = this.int(0, index);
      const a = copy[index] as T;
      copy[index] = copy[other] as T;
      copy[other] = a;
    }
    return copy;
  }
  /** A non-empty selection, duplicates allowed (the server deduplicates). */
  some<T>(items: readonly T[], max = items.length): T[] {
    return Array.from({ length: this.int(1, max) }, () => this.pick(items));
  }
  hex(length: number): string {
    return Array.from({ length }, () => this.int(0, 15).toString(16)).join('');
  }
  uuid(): string {
    const variant = this.pick(['8', '9', 'a', 'b']);
    return `${this.hex(8)}-${this.hex(4)}-4${this.hex(3)}-${variant}${this.hex(3)}-${this.hex(12)}`;
  }
}

/**
 * Texts the wire contract accepts that PostgreSQL's jsonb cannot hold: NUL
 * and lone surrogates. They 500 on PostgreSQL once they reach the claim, so
 * they are kept out of the generated valid bodies and tried in the suite at
 * the end of this file instead (see the report there).
 */
export const DB_HOSTILE_TEXTS: readonly string[] = [
  'nul \u0000 inside',
  'lone high \ud800 surrogate',
  'lone low \udfff surrogate',
  'reversed \udc00\ud800 pair',
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
      // Within the UTF-16 cap of the shape but over 2000 code points.
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
      // Blank after trimming, with no option: unicode spaces that trim removes.
      return withAnswer(g, (answer) => ({
        question_id: answer.question_id,
        custom_text: g.pick(['\u3000', '\u00a0\u2028\u2029', '\ufeff', ' \t\n ', '']),
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
    case 'binary': {
      const encoder = new TextEncoder();
      const kind = g.int(0, 3);
      if (kind === 0) return Uint8Array.from({ length: g.int(1, 400) }, () => g.int(0, 255));
      if (kind === 1) {
        // UTF-16LE JSON: NULs between the characters once read as UTF-8.
        return new Uint8Array(Buffer.from(JSON.stringify(anyValid(g)), 'utf16le'));
      }
      if (kind === 2) {
        // A broken byte inside a string: read as U+FFFD, which may well be acceptable text.
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

/** The ID of a target as the URL carries it, and what it stands for. */
export interface Target {
  category: string;
  /** The path segment as sent (percent-encoded, or raw for percent junk). */
  segment: string;
  label: string;
  real: RealKey | undefined;
}

export const ID_WEIGHTS = {
  real: 22,
  'unknown-uuid': 8,
  'real-variant': 10,
  'sql-injection': 9,
  'path-traversal': 7,
  'json-path': 7,
  'very-long': 6,
  whitespace: 6,
  unicode: 6,
  'percent-junk': 7,
  keyword: 5,
} as const;

export type IdCategory = keyof typeof ID_WEIGHTS;

export function encoded(category: string, id: string, real?: RealKey): Target {
  return { category, segment: encodeURIComponent(id), label: id, real };
}

export function generateTarget(g: Gen, category: IdCategory, ids: Record<RealKey, string>): Target {
  const someReal = ids[g.pick(REAL_KEYS)];
  switch (category) {
    case 'real': {
      const key = g.pick(REAL_KEYS);
      return encoded(category, ids[key], key);
    }
    case 'unknown-uuid':
      return encoded(
        category,
        g.pick([
          g.uuid(),
          g.uuid().toUpperCase(),
          UNKNOWN_ID,
          'ffffffff-ffff-ffff-ffff-ffffffffffff',
          g.uuid().replaceAll('-', ''),
          `{${g.uuid()}}`,
        ]),
      );
    case 'real-variant': {
      const last = someReal.at(-1) ?? '0';
      return encoded(
        category,
        g.pick([
          someReal.toUpperCase(),
          ` ${someReal}`,
          `${someReal} `,
          `${someReal}\n`,
          someReal.slice(0, -1),
          `${someReal}0`,
          someReal.slice(0, -1) + (last === '0' ? '1' : '0'),
          `${someReal}'--`,
          `${someReal}\u200b`,
          someReal.replaceAll('-', ''),
          `${someReal}%`,
          `${someReal}_`,
          someReal.replace(/[0-9a-f]$/, '_'),
          `${someReal},${someReal}`,
          `["${someReal}"]`,
        ]),
      );
    }
    case 'sql-injection':
      return encoded(
        category,
        g.pick([
          "' OR 1=1 --",
          "' OR '1'='1",
          '"; DROP TABLE task_session_messages; --',
          "'; DROP TABLE task_session_messages; --",
          `${someReal}' OR '1'='1`,
          `${someReal}'; UPDATE task_session_messages SET metadata = '{}'; --`,
          "x' UNION SELECT * FROM task_sessions --",
          "%' OR pending_id LIKE '%",
          '1; SELECT pg_sleep(5)',
          "'||(SELECT id FROM task_sessions LIMIT 1)||'",
          '\\',
          "\\'",
          "''",
          '"',
          '`',
          ';',
          '--',
          '/* */',
          "') OR json_extract(metadata, '$.status') = 'pending' --",
          "') OR metadata->>'status' = 'pending' --",
        ]),
      );
    case 'path-traversal':
      return encoded(
        category,
        g.pick([
          '../',
          '../../etc/passwd',
          '..\\..\\windows',
          '%2e%2e',
          '%2e%2e%2f',
          '..%2F',
          '.%2e',
          `${someReal}/../${someReal}`,
          `../${someReal}`,
          `${someReal}/respond`,
          '/',
          '?x=1',
          '#frag',
          `${someReal}?pending_id=${someReal}`,
          '....//',
          '%252e%252e',
        ]),
      );
    case 'json-path':
      return encoded(
        category,
        g.pick([
          '$.pending_id',
          '$',
          '*',
          '$..*',
          '$[0]',
          '@',
          '{}',
          '[]',
          '$."pending_id"',
          'pending_id',
          "metadata->>'pending_id'",
          '{"$ne":null}',
          '{"$gt":""}',
          '%',
          '_',
          '?',
        ]),
      );
    case 'very-long': {
      const length = g.pick([129, 200, 1_000, 4_096, 10_000]);
      const unit = g.pick(['a', '0', someReal, '🦀', '%', "'"]);
      // Sliced by code point, so no surrogate pair is cut in half.
      const id = Array.from(unit.repeat(length)).slice(0, length).join('');
      return encoded(category, id);
    }
    case 'whitespace':
      return encoded(
        category,
        g.pick([' ', '  ', '\t', '\n', '\r\n', '\u00a0', '\u200b', '\u3000', '\ufeff', '+']),
      );
    case 'unicode':
      return encoded(
        category,
        g.pick([
          '🦀',
          '👩🏽‍💻',
          `\u202e${someReal}`,
          `${someReal}\u0301`,
          'İ',
          'ﬀ',
          'Ω',
          '\u{10ffff}',
          '\ufffd',
          '日本語',
        ]),
      );
    case 'percent-junk': {
      // Raw segments, not re-encoded: the server decodes (or fails to decode) them.
      const segment = g.pick([
        '%',
        '%%',
        '%zz',
        '%ED%A0%80',
        '%ED%BF%BF',
        '%C0%AF',
        '%C0%AE%C0%AE',
        '%FF',
        '%FF%FE',
        '%E2%80%AE',
        '%25',
        '%2F',
        '%5C',
        '%u0041',
        '%2e%2e%2f',
        `${someReal}%`,
        `%${someReal}`,
        `${someReal}%2F..`,
        '%F0%9F%A6',
        '%%32%65',
      ]);
      return { category, segment, label: `raw:${segment}`, real: undefined };
    }
    case 'keyword':
      return encoded(
        category,
        g.pick([
          '0',
          '-1',
          '1e309',
          'NaN',
          'null',
          'undefined',
          'true',
          '[object Object]',
          '__proto__',
          'constructor',
          'prototype',
          'toString',
          'hasOwnProperty',
          'valueOf',
        ]),
      );
  }
}

// ---------------------------------------------------------------------------
// The model the expectations come from.

/**
 * What the server reads out of the bytes sent, decoded exactly as the route
 * decodes them (`Request.text()`: UTF-8, U+FFFD for broken bytes, and in
 * Node's fetch, leading BOMs dropped, two of them included).
 */
export function serverText(body: string | Uint8Array): Promise<string> {
  return new Response(body).text();
}

export function byteLength(body: string | Uint8Array): number {
  return typeof body === 'string' ? new TextEncoder().encode(body).byteLength : body.byteLength;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function onlyKeys(value: Record<string, unknown>, allowed: readonly string[]): boolean {
  return Object.keys(value).every((key) => allowed.includes(key));
}

export const isString = (value: unknown, min: number, max: number): value is string =>
  typeof value === 'string' && value.length >= min && value.length <= max;

/**
 * The body shape the route accepts (DESIGN §5.1): a strict object, unknown
 * fields refused; undefined when it fits, else a reason.
 */
export function schemaProblem(text: string): string | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return 'not JSON';
  }
  if (!isPlainObject(raw)) return 'not an object';
  if (!onlyKeys(raw, ['answers', 'rejected', 'reject_reason'])) return 'unknown field';
  if ('rejected' in raw && typeof raw.rejected !== 'boolean') return 'rejected';
  if ('reject_reason' in raw && !isString(raw.reject_reason, 0, 8000)) return 'reject_reason';
  if (!('answers' in raw)) return undefined;
  if (!Array.isArray(raw.answers) || raw.answers.length > 4) return 'answers';
  for (const answer of raw.answers as unknown[]) {
    if (!isPlainObject(answer)) return 'answer';
    if (!onlyKeys(answer, ['question_id', 'selected_options', 'custom_text'])) {
      return 'unknown answer field';
    }
    if (!isString(answer.question_id, 1, 64)) return 'question_id';
    if ('selected_options' in answer) {
      const selected = answer.selected_options;
      if (!Array.isArray(selected) || selected.length > 6) return 'selected_options';
      if (!selected.every((option) => isString(option, 1, 64))) return 'option';
    }
    if ('custom_text' in answer && !isString(answer.custom_text, 0, 8000)) return 'custom_text';
  }
  return undefined;
}

export type Expectation =
  | { kind: 'exact'; statuses: readonly number[]; why: string }
  | { kind: 'like-unknown'; status: number; why: string };

export interface Case {
  index: number;
  idCategory: IdCategory;
  bodyCategory: BodyCategory;
  target: Target;
  body: string | Uint8Array;
  as: Who;
  expectation: Expectation;
}

export async function expectationFor(
  target: Target,
  as: Who,
  body: string | Uint8Array,
  questions: Record<Shape, readonly Question[]>,
): Promise<Expectation> {
  if (byteLength(body) > BODY_LIMIT) return { kind: 'exact', statuses: [413], why: 'over 64 KiB' };
  const text = await serverText(body);
  const problem = schemaProblem(text);
  // The route reads the body before it looks the ID up.
  if (problem !== undefined) return { kind: 'exact', statuses: [400], why: `shape: ${problem}` };
  const visible = target.real !== undefined && VISIBLE_TO[target.real].includes(as);
  if (!target.real || !visible) {
    return { kind: 'like-unknown', status: 404, why: 'unknown or not visible' };
  }
  const decided = decide(questions[SHAPE_OF[target.real]], JSON.parse(text) as RespondInput);
  if (target.real === 'active') {
    if (decided.ok) throw new Error('generator bug: a valid answer aimed at the active bundle');
    return { kind: 'exact', statuses: [400], why: 'invalid for the active bundle' };
  }
  return decided.ok
    ? { kind: 'exact', statuses: [409], why: `valid for the ${target.real} bundle` }
    : { kind: 'exact', statuses: [400, 409], why: `invalid for the ${target.real} bundle` };
}

/** Whether `body` would be a valid answer to the active bundle if `as` sent it there. */
export async function claimsActive(
  body: string | Uint8Array,
  questions: readonly Question[],
): Promise<boolean> {
  if (byteLength(body) > BODY_LIMIT) return false;
  const text = await serverText(body);
  if (schemaProblem(text) !== undefined) return false;
  return decide(questions, JSON.parse(text) as RespondInput).ok;
}

export async function generateCases(
  ids: Record<RealKey, string>,
  questions: Record<Shape, readonly Question[]>,
): Promise<Case[]> {
  const g = new Gen(SEED);
  const cases: Case[] = [];
  for (let index = 0; index < CASES_PER_DIALECT; index++) {
    const bodyCategory = g.weighted(BODY_WEIGHTS);
    const raw = generateBody(g, bodyCategory);
    const body = typeof raw === 'string' || raw instanceof Uint8Array ? raw : JSON.stringify(raw);
    const as = g.weighted<Who>({ member: 70, agent: 15, outsider: 15 });
    let idCategory = g.weighted(ID_WEIGHTS);
    let target = generateTarget(g, idCategory, ids);
    if (bodyCategory === 'valid' && g.chance(0.4)) {
      // Valid answers aimed at bundles that can no longer take them: 409, or 404 if hidden.
      idCategory = 'real';
      const key = g.pick<RealKey>(['superseded', 'expired', 'ended', 'foreign']);
      target = encoded(idCategory, ids[key], key);
    }
    // The active bundle stays unclaimed: nobody who can see it gets to answer it validly.
    while (
      target.real === 'active' &&
      VISIBLE_TO.active.includes(as) &&
      (await claimsActive(body, questions.parser))
    ) {
      idCategory = g.weighted(ID_WEIGHTS);
      target = generateTarget(g, idCategory, ids);
    }
    cases.push({
      index,
      idCategory,
      bodyCategory,
      target,
      body,
      as,
      expectation: await expectationFor(target, as, body, questions),
    });
  }
  return cases;
}

// ---------------------------------------------------------------------------
// Wire helpers.

export interface Reply {
  status: number;
  contentType: string;
  text: string;
}

export async function read(response: Response): Promise<Reply> {
  return {
    status: response.status,
    contentType: response.headers.get('content-type') ?? '',
    text: await response.text(),
  };
}

/** Problems with a reply's body: JSON, a string `error`, the status's `code`. */
export function bodyProblems(reply: Reply): string[] {
  let json: unknown;
  try {
    json = JSON.parse(reply.text);
  } catch {
    return [`body is not JSON: ${reply.text.slice(0, 120)}`];
  }
  if (!isPlainObject(json)) return ['body is not an object'];
  const problems: string[] = [];
  if (typeof json.error !== 'string') problems.push('no string error');
  const code = CODE_OF_STATUS[reply.status];
  if (json.code !== code) problems.push(`code ${String(json.code)} for status ${reply.status}`);
  if (!reply.contentType.startsWith('application/json')) {
    problems.push(`content-type ${reply.contentType}`);
  }
  return problems;
}

export function preview(value: string | Uint8Array, max = 160): string {
  const text =
    typeof value === 'string' ? value : `bytes:${Buffer.from(value).toString('hex').slice(0, max)}`;
  const shown = JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);
  return text.length > max ? `${shown} (${text.length} chars)` : shown;
}

export async function inBatches<T, R>(
  items: readonly T[],
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = [];
  for (let start = 0; start < items.length; start += CONCURRENCY) {
    results.push(...(await Promise.all(items.slice(start, start + CONCURRENCY).map(work))));
  }
  return results;
}

export function tally(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

export function sorted(counts: Map<string, number>): Record<string, number> {
  return Object.fromEntries([...counts].sort(([a], [b]) => a.localeCompare(b)));
}

// ---------------------------------------------------------------------------
