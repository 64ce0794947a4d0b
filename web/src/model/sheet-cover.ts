/**
 * What a bottom sheet covers, so that the page can make it `inert`: a
 * keyboard, switch or screen-reader user must not move into controls they
 * cannot see. The sheet spans the window's width and everything from its top
 * edge down: what lies wholly at or below that edge is covered (also beyond
 * the window's end, since focusing it would scroll it only to under the
 * sheet), what lies wholly above is not, and a part that straddles the edge
 * is judged by its own parts, down to a leaf, which is covered when its
 * centre is. The sheet, what holds it and what holds a live region are never
 * covered whole: an inert ancestor would silence them. Pure: the caller
 * measures, lazily, in the window's coordinates.
 */

export interface CoverPart<T> {
  node: T;
  top: number;
  bottom: number;
  /** The sheet itself: never covered, never entered. */
  isSheet: boolean;
  /** Holds the sheet or a live region: never covered whole, only in parts. */
  mustStay: boolean;
  /** Its parts, measured when asked. */
  parts: () => readonly CoverPart<T>[];
}

/** The nodes to make inert while a sheet whose top edge is at `sheetTop` is open. */
export function coveredParts<T>(parts: readonly CoverPart<T>[], sheetTop: number): T[] {
  const covered: T[] = [];
  const visit = (part: CoverPart<T>): void => {
    if (part.isSheet || part.bottom <= sheetTop) return;
    if (part.top >= sheetTop && !part.mustStay) {
      covered.push(part.node);
      return;
    }
    const inner = part.parts();
    if (inner.length > 0) {
      inner.forEach(visit);
      return;
    }
    if (!part.mustStay && (part.top + part.bottom) / 2 >= sheetTop) covered.push(part.node);
  };
  parts.forEach(visit);
  return covered;
}
