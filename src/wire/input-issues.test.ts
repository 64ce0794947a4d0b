import { describe, expect, it } from 'vitest';
import { askInput } from './clarification.js';
import { inputIssues } from './input-issues.js';
import { MAX_QUESTIONS } from './limits.js';

const issuesOf = (input: unknown) => {
  const parsed = askInput.safeParse(input);
  if (parsed.success) throw new Error('accepted');
  return inputIssues(parsed.error.issues);
};

const option = { label: 'A', description: 'An option' };

describe('inputIssues', () => {
  it('names only the wrong type of a value that has a length, not its size', () => {
    expect(issuesOf({ questions: 'which one?' })).toEqual([
      { path: 'questions', message: 'Invalid input: expected array, received string' },
    ]);
  });

  it('keeps a size issue of a value of the right type', () => {
    const questions = Array.from({ length: MAX_QUESTIONS + 1 }, () => ({
      prompt: 'Which?',
      options: [option, option],
    }));
    expect(issuesOf({ questions })).toEqual([
      { path: 'questions', message: `allows at most ${MAX_QUESTIONS} questions` },
    ]);
  });

  it('makes each unknown key an issue at its own path', () => {
    expect(
      issuesOf({ questions: [{ prompt: 'Which?', options: [option, option], why: 1 }], x: 2 }),
    ).toEqual([
      { path: 'questions.0.why', message: 'unknown field' },
      { path: 'x', message: 'unknown field' },
    ]);
  });
});
