/**
 * Text a person or an agent writes must be storable as JSON in both engines:
 * PostgreSQL's jsonb refuses NUL and unpaired surrogates, so both are refused
 * up front as invalid input rather than failing later as a server error.
 */
export function textProblem(value: string): string | undefined {
  if (value.includes('\u0000')) return 'must not contain NUL characters';
  if (hasLoneSurrogate(value)) return 'must be well-formed Unicode (no unpaired surrogates)';
  return undefined;
}

// String.prototype.isWellFormed, which the ES2023 library typings lack.
function hasLoneSurrogate(value: string): boolean {
  for (let index = 0; index < value.length; index++) {
    const unit = value.charCodeAt(index);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = value.charCodeAt(index + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) return true;
      index++;
    } else if (unit >= 0xdc00 && unit <= 0xdfff) {
      return true;
    }
  }
  return false;
}
