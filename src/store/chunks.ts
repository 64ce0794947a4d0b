/** Statements stay well under both engines' bound-parameter limits. */
const CHUNK = 200;

/** `items` in slices of at most `CHUNK`, for `IN` lists. */
export function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += CHUNK) {
    out.push(items.slice(start, start + CHUNK));
  }
  return out;
}
