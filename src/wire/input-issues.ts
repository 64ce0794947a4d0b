/**
 * A schema's refusal of an input as the wire's `Issue`s: each a dotted path
 * and what is wrong there, so a client can point at the field.
 */
import type { z } from 'zod';
import type { Issue } from './outcomes.js';

/**
 * The issues of a zod refusal. An unknown key is an issue of its own
 * ("unknown field"). A value of the wrong type gets that one issue: zod also
 * runs its size checks on anything with a length, which would add "allows at
 * most 4 questions" to a string sent where the questions belong.
 */
export function inputIssues(issues: readonly z.core.$ZodIssue[]): Issue[] {
  const pathOf = (issue: z.core.$ZodIssue) => issue.path.map((key) => String(key)).join('.');
  const mistyped = new Set(
    issues.filter((issue) => issue.code === 'invalid_type').map((issue) => pathOf(issue)),
  );
  return issues.flatMap((issue) => {
    const path = pathOf(issue);
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        path: path === '' ? key : `${path}.${key}`,
        message: 'unknown field',
      }));
    }
    if (issue.code !== 'invalid_type' && mistyped.has(path)) return [];
    return [{ path, message: issue.message }];
  });
}
