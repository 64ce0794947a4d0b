import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN_MAX_LENGTH, ADMIN_TOKEN_MIN_LENGTH, adminTokenProblem } from './bootstrap.js';

describe('adminTokenProblem', () => {
  it.each([
    ['a'.repeat(ADMIN_TOKEN_MIN_LENGTH), undefined],
    ['a'.repeat(ADMIN_TOKEN_MAX_LENGTH), undefined],
    ['clr_' + 'x'.repeat(43), undefined],
    ['a'.repeat(ADMIN_TOKEN_MIN_LENGTH - 1), /at least 16/],
    ['a'.repeat(ADMIN_TOKEN_MAX_LENGTH + 1), /at most 512/],
    ['sixteen chars with spaces', /whitespace/],
  ])('%s → %s', (value, expected) => {
    const problem = adminTokenProblem(value);
    if (expected === undefined) expect(problem).toBeUndefined();
    else expect(problem).toMatch(expected);
  });
});
