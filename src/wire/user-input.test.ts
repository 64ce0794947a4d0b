import { describe, expect, it } from 'vitest';
import { MAX_ANSWER_TEXT_CODE_POINTS } from './limits.js';
import {
  USER_INPUT_ANSWER_SHAPES,
  userInputAnswerOf,
  userInputRespondBody,
  type UserInputRespondField,
} from './user-input.js';

/** What a refusal says: the reply's message (`params.summary`) and each issue's path and message. */
function refusalOf(body: unknown) {
  const parsed = userInputRespondBody.safeParse(body);
  if (parsed.success) return undefined;
  return parsed.error.issues.map((issue) => ({
    summary: issue.code === 'custom' ? (issue.params?.summary as string | undefined) : undefined,
    path: issue.path.join('.'),
    message: issue.message,
  }));
}

const EITHER = {
  summary: 'give either option_id or decision',
  path: '',
  message: 'exactly one of option_id (consent) or decision (action, form)',
};
const REASON = {
  summary: 'a reason goes with decision "skip" or a reject option only',
  path: 'reason',
  message: 'only with decision "skip" or a reject option_id',
};
const CONTENT = {
  summary: 'content goes only with decision "accept"',
  path: 'content',
  message: 'only a form accepted with decision "accept" has content',
};

describe('userInputRespondBody', () => {
  it.each([
    ['a consent option', { option_id: 'allow-once' }],
    ['a consent option with a reason', { option_id: 'reject-once', reason: 'not now' }],
    ['an action done', { decision: 'done' }],
    ['an action skipped', { decision: 'skip' }],
    ['an action skipped with a reason', { decision: 'skip', reason: 'no access' }],
    ['a form accepted with content', { decision: 'accept', content: { env: 'dev' } }],
    ['a form accepted without content', { decision: 'accept' }],
    // The form's own schema checks what content holds, in the registry.
    ['a form accepted with content of any kind', { decision: 'accept', content: 'dev' }],
    ['a form declined', { decision: 'decline' }],
  ])('accepts %s', (_case, body) => {
    expect(userInputRespondBody.parse(body)).toEqual(body);
  });

  it.each([
    ['an empty body', {}, [EITHER]],
    ['a reason alone', { reason: 'why' }, [EITHER]],
    ['content alone', { content: {} }, [EITHER]],
    ['both option_id and decision', { option_id: 'allow-once', decision: 'done' }, [EITHER]],
    [
      'both option_id and decision, with a reason',
      { option_id: 'reject-once', decision: 'skip', reason: 'why' },
      [EITHER],
    ],
    ['a reason with done', { decision: 'done', reason: 'why' }, [REASON]],
    ['a reason with accept', { decision: 'accept', reason: 'why', content: {} }, [REASON]],
    ['a reason with decline', { decision: 'decline', reason: 'why' }, [REASON]],
    // Even a blank one: the fields are checked as sent, before any trimming.
    ['a blank reason with done', { decision: 'done', reason: '  ' }, [REASON]],
    ['content with an option', { option_id: 'allow-once', content: {} }, [CONTENT]],
    ['content with done', { decision: 'done', content: {} }, [CONTENT]],
    ['content with skip', { decision: 'skip', content: {} }, [CONTENT]],
    ['content with decline', { decision: 'decline', content: { env: 'dev' } }, [CONTENT]],
  ])('refuses %s, with the message REST has always given', (_case, body, refusal) => {
    expect(refusalOf(body)).toEqual(refusal);
  });

  it('checks fields together only once each is well formed, and names no body-wide message then', () => {
    const tooLong = 'x'.repeat(MAX_ANSWER_TEXT_CODE_POINTS + 1);
    expect(refusalOf({ decision: 'done', reason: tooLong })).toEqual([
      {
        summary: undefined,
        path: 'reason',
        message: `must be at most ${MAX_ANSWER_TEXT_CODE_POINTS} characters`,
      },
    ]);
    expect(refusalOf({ option_id: 'a', decision: 'maybe' })?.map((issue) => issue.path)).toEqual([
      'decision',
    ]);
    expect(refusalOf({ option_id: '' })?.map((issue) => issue.path)).toEqual(['option_id']);
    expect(refusalOf({ decision: 'done', reason: 'why', extra: 1 })).toEqual([
      expect.objectContaining({ summary: undefined, path: '' }),
    ]);
  });

  it('holds a body to exactly the shapes its OpenAPI oneOf shows, over every combination', () => {
    // The metadata zod-openapi renders into the document as it is.
    const rendered = userInputRespondBody.meta() as {
      oneOf: {
        required: UserInputRespondField[];
        properties: Record<string, false | { const: string }>;
      }[];
    };
    expect(rendered.oneOf).toHaveLength(USER_INPUT_ANSWER_SHAPES.length);
    const matches = (body: Record<string, unknown>) =>
      rendered.oneOf.filter(
        (branch) =>
          branch.required.every((field) => field in body) &&
          Object.entries(branch.properties).every(([field, rule]) =>
            rule === false ? !(field in body) : !(field in body) || body[field] === rule.const,
          ),
      ).length;
    let accepted = 0;
    for (const option_id of [undefined, 'reject-once'])
      for (const decision of [undefined, 'done', 'skip', 'accept', 'decline'])
        for (const reason of [undefined, 'why'])
          for (const content of [undefined, { env: 'dev' }]) {
            const body = Object.fromEntries(
              Object.entries({ option_id, decision, reason, content }).filter(
                ([, value]) => value !== undefined,
              ),
            );
            const parses = userInputRespondBody.safeParse(body).success;
            expect({ body, parses }).toEqual({ body, parses: matches(body) === 1 });
            expect(matches(body)).toBeLessThanOrEqual(1);
            if (parses) accepted += 1;
          }
    // An option with or without a reason; done; skip with or without; accept with or without; decline.
    expect(accepted).toBe(8);
  });
});

describe('userInputAnswerOf', () => {
  it.each([
    [{ option_id: 'allow-once' }, { option_id: 'allow-once' }],
    [
      { option_id: 'reject-once', reason: '  not now ' },
      { option_id: 'reject-once', reason: 'not now' },
    ],
    [{ option_id: 'reject-once', reason: '   ' }, { option_id: 'reject-once' }],
    [{ decision: 'done' }, { decision: 'done' }],
    [{ decision: 'skip' }, { decision: 'skip' }],
    [
      { decision: 'skip', reason: ' no access' },
      { decision: 'skip', reason: 'no access' },
    ],
    [{ decision: 'skip', reason: '' }, { decision: 'skip' }],
    [
      { decision: 'accept', content: { env: 'dev' } },
      { decision: 'accept', content: { env: 'dev' } },
    ],
    [{ decision: 'accept' }, { decision: 'accept', content: {} }],
    [{ decision: 'decline' }, { decision: 'decline' }],
  ])('gives %j as %j', (body, answer) => {
    expect(userInputAnswerOf(userInputRespondBody.parse(body))).toEqual(answer);
  });
});
