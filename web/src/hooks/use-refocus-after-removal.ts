/**
 * Where the focus goes once a row's removal is answered: the confirm step
 * that had it is gone, and a removed row takes its buttons along, so a
 * keyboard or screen-reader user would be left on the page's body. The row
 * now at `index` (the next one, or the last) gets it on its first button, or
 * `fallback` when no row is left; when the row stayed (the removal failed),
 * its own button that opened the confirm step (`aria-expanded`). Focus the
 * person moved elsewhere meanwhile is theirs.
 */
import { useEffect, useState, type RefObject } from 'react';

export interface Refocus {
  readonly index: number;
  readonly stayed: boolean;
}

export function useRefocusAfterRemoval(
  list: RefObject<HTMLElement | null>,
  rowSelector: string,
  fallback: RefObject<HTMLElement | null>,
  /** The rows as rendered: the focus moves once they are. */
  rows: unknown,
): (refocus: Refocus) => void {
  const [refocus, setRefocus] = useState<Refocus | null>(null);
  useEffect(() => {
    if (refocus === null) return;
    setRefocus(null);
    const active = document.activeElement;
    if (active !== null && active !== document.body) return;
    const shown = list.current?.querySelectorAll(rowSelector) ?? [];
    const row = shown[Math.min(refocus.index, shown.length - 1)];
    const button = row?.querySelector<HTMLElement>(
      refocus.stayed ? 'button[aria-expanded]' : 'button',
    );
    (button ?? fallback.current)?.focus();
  }, [refocus, rows, list, rowSelector, fallback]);
  return setRefocus;
}
