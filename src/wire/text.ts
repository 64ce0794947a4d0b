/**
 * Text rules every surface shares (pure, no zod): what is storable as JSON in
 * both engines, and how the answer-text cap counts. PostgreSQL's jsonb refuses
 * NUL and unpaired surrogates, so both are refused up front as invalid input
 * rather than failing later as a server error.
 */

export function textProblem(value: string): string | undefined {
  if (value.includes('\u0000')) return 'must not contain NUL characters';
  if (hasLoneSurrogate(value)) return 'must be well-formed Unicode (no unpaired surrogates)';
  return undefined;
}

/** Length in Unicode code points, the unit of the answer-text cap (not UTF-16 units, not graphemes). */
export function codePoints(value: string): number {
  let count = 0;
  for (let index = 0; index < value.length; index++) {
    const unit = value.charCodeAt(index);
    // A high surrogate followed by a low one is one code point.
    if (unit >= 0xd800 && unit <= 0xdbff && index + 1 < value.length) {
      const next = value.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) index++;
    }
    count++;
  }
  return count;
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
