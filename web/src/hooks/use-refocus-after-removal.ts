/**
 * Where the focus goes once a row's removal is answered: the confirm step
 * that had it is gone, and a removed row takes its buttons along, so a
 * keyboard or screen-reader user would be left on the page's body. The row
 * now at `index` (the next one, or the last) gets it on its first usable button, or
 * `fallback` when no row is left; when the row stayed (the removal failed),
 * its own button that opened the confirm step (`aria-expanded`). Focus the
 * person moved elsewhere meanwhile is theirs.
 *
 * A row removed by a live update (another tab or device) while the focus was
 * in it is the same loss without any removal here: the focus then goes the
 * same way, to the row now where it was.
 */
import { useEffect, useRef, useState, type RefObject } from 'react';

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
  // The element in a row that last had the focus, and that row's place in the list.
  const held = useRef<{ element: Element; index: number } | undefined>(undefined);

  useEffect(() => {
    const track = (event: FocusEvent) => {
      const target = event.target;
      const row = target instanceof Element ? target.closest(rowSelector) : null;
      const shown = [...(list.current?.querySelectorAll(rowSelector) ?? [])];
      const index = row === null ? -1 : shown.indexOf(row);
      held.current =
        target instanceof Element && index >= 0 ? { element: target, index } : undefined;
    };
    document.addEventListener('focusin', track);
    return () => {
      document.removeEventListener('focusin', track);
    };
  }, [list, rowSelector]);

  useEffect(() => {
    const lost = held.current;
    const wanted: Refocus | null =
      refocus ?? (lost && !lost.element.isConnected ? { index: lost.index, stayed: false } : null);
    if (wanted === null) return;
    if (refocus !== null) setRefocus(null);
    const active = document.activeElement;
    // Still on the row's own button (busy while its removal went): the list read that answers
    // may come a render later, and the row's going is then the loss the focus follows. A button
    // removed with its row in this very render may still be the active element here.
    if (active !== null && active !== document.body && active.isConnected) return;
    held.current = undefined;
    const shown = list.current?.querySelectorAll(rowSelector) ?? [];
    const row = shown[Math.min(wanted.index, shown.length - 1)];
    // A disabled button (a first row's Move up) cannot take the focus: the first one that can.
    const button = row?.querySelector<HTMLElement>(
      wanted.stayed ? 'button[aria-expanded]' : 'button:not(:disabled)',
    );
    (button ?? fallback.current)?.focus();
  }, [refocus, rows, list, rowSelector, fallback]);
  return setRefocus;
}
