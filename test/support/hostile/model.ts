/** A small model of the wire contract (the strict body shape and the bundle rules of `decide`) that computes what each hostile case must get back. */
import { decide, type RespondInput } from '../../../src/clarification/outcome.js';
import { decodeUtf8, textIssues } from '../../../src/wire/index.js';
import type { Question } from '../../../src/clarification/questions.js';
import {
  BODY_LIMIT,
  CASES_PER_DIALECT,
  type RealKey,
  SEED,
  SHAPE_OF,
  type Shape,
  VISIBLE_TO,
  type Who,
} from './world.js';
import { Gen } from './gen.js';
import { BODY_WEIGHTS, type BodyCategory, generateBody } from './bodies.js';
import { ID_WEIGHTS, type IdCategory, type Target, encoded, generateTarget } from './targets.js';

/**
 * What the server reads out of the bytes sent, decoded exactly as the route
 * decodes them: strict UTF-8 (undefined for broken bytes, which are refused,
 * never read as U+FFFD), one leading BOM dropped.
 */
export function serverText(body: string | Uint8Array): string | undefined {
  return decodeUtf8(typeof body === 'string' ? new TextEncoder().encode(body) : body);
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

/** Custom text and reject reasons: at most 2000 code points (a string iterates by code point). */
const isAnswerText = (value: unknown): boolean =>
  typeof value === 'string' && Array.from(value).length <= 2000;

/**
 * The body the route accepts (DESIGN §5.1): JSON whose every string is
 * storable text (else `invalid_text`), then a strict object, unknown fields
 * refused; undefined when it fits, else the reason and the 400's code.
 */
export function bodyVerdict(text: string): { why: string; code: Code400 } | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { why: 'not JSON', code: 'invalid_request' };
  }
  if (textIssues(raw).length > 0) return { why: 'text no database keeps', code: 'invalid_text' };
  const problem = schemaProblem(raw);
  return problem === undefined ? undefined : { why: problem, code: 'invalid_request' };
}

export type Code400 = 'invalid_request' | 'invalid_text';

/** The strict body shape: undefined when it fits, else a reason. */
export function schemaProblem(raw: unknown): string | undefined {
  if (!isPlainObject(raw)) return 'not an object';
  if (!onlyKeys(raw, ['answers', 'rejected', 'reject_reason'])) return 'unknown field';
  if ('rejected' in raw && typeof raw.rejected !== 'boolean') return 'rejected';
  if ('reject_reason' in raw && !isAnswerText(raw.reject_reason)) return 'reject_reason';
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
    if ('custom_text' in answer && !isAnswerText(answer.custom_text)) return 'custom_text';
  }
  return undefined;
}

export type Expectation =
  | { kind: 'exact'; statuses: readonly number[]; why: string; code?: Code400 }
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

export function expectationFor(
  target: Target,
  as: Who,
  body: string | Uint8Array,
  questions: Record<Shape, readonly Question[]>,
): Expectation {
  if (byteLength(body) > BODY_LIMIT)
    return { kind: 'exact', statuses: [413], why: 'over the body cap' };
  const text = serverText(body);
  if (text === undefined) {
    return { kind: 'exact', statuses: [400], why: 'not UTF-8', code: 'invalid_text' };
  }
  const verdict = bodyVerdict(text);
  // The route reads the body before it looks the ID up.
  if (verdict !== undefined) {
    return { kind: 'exact', statuses: [400], why: `body: ${verdict.why}`, code: verdict.code };
  }
  // An agent never decides (DESIGN §6): refused for every ID the route lets through to the service.
  if (as === 'agent') {
    return target.real
      ? { kind: 'exact', statuses: [403], why: 'an agent never decides' }
      : {
          kind: 'exact',
          statuses: [403, 404],
          why: 'an agent never decides; a malformed ID is 404',
        };
  }
  const visible = target.real !== undefined && VISIBLE_TO[target.real].includes(as);
  if (!target.real || !visible) {
    return { kind: 'like-unknown', status: 404, why: 'unknown or not visible' };
  }
  const decided = decide(questions[SHAPE_OF[target.real]], JSON.parse(text) as RespondInput);
  if (target.real === 'active') {
    if (decided.ok) throw new Error('generator bug: a valid answer aimed at the active bundle');
    return {
      kind: 'exact',
      statuses: [400],
      why: 'invalid for the active bundle',
      code: 'invalid_request',
    };
  }
  return decided.ok
    ? { kind: 'exact', statuses: [409], why: `valid for the ${target.real} bundle` }
    : {
        kind: 'exact',
        statuses: [400, 409],
        why: `invalid for the ${target.real} bundle`,
        code: 'invalid_request',
      };
}

/** Whether `body` would be a valid answer to the active bundle if `as` sent it there. */
export function claimsActive(body: string | Uint8Array, questions: readonly Question[]): boolean {
  if (byteLength(body) > BODY_LIMIT) return false;
  const text = serverText(body);
  if (text === undefined || bodyVerdict(text) !== undefined) return false;
  return decide(questions, JSON.parse(text) as RespondInput).ok;
}

export function generateCases(
  ids: Record<RealKey, string>,
  questions: Record<Shape, readonly Question[]>,
): Case[] {
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
      claimsActive(body, questions.parser)
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
      expectation: expectationFor(target, as, body, questions),
    });
  }
  return cases;
}
