/**
 * `useSheetCover(sheetRef, open)`: while the pending sheet is open as a
 * phone's bottom sheet (the stylesheet fixes it to the window's end), what it
 * covers is `inert` (`model/sheet-cover.ts` says what that is), out of the
 * tab order and the accessibility tree; what it does not cover stays usable.
 * The page scrolls under the sheet, so this is measured again on the next
 * frame after a scroll, a resize, a change of the sheet's size or of the
 * page. A docked sheet (a desktop) covers nothing; closing it, or leaving
 * the page, gives everything back.
 */
import { useEffect, type RefObject } from 'react';
import { coveredParts, type CoverPart } from '../model/sheet-cover.js';

const LIVE_REGION = '[aria-live], [role="status"], [role="alert"], [role="log"]';

function partOf(element: Element, sheet: Element): CoverPart<Element> {
  const box = element.getBoundingClientRect();
  return {
    node: element,
    top: box.top,
    bottom: box.bottom,
    isSheet: element === sheet,
    mustStay:
      element.contains(sheet) ||
      element.matches(LIVE_REGION) ||
      element.querySelector(LIVE_REGION) !== null,
    parts: () => partsOf(element, sheet),
  };
}

function partsOf(element: Element, sheet: Element): CoverPart<Element>[] {
  return [...element.children]
    .filter((child) => !(child instanceof HTMLScriptElement || child instanceof HTMLStyleElement))
    .map((child) => partOf(child, sheet));
}

export function useSheetCover(sheetRef: RefObject<HTMLElement | null>, open: boolean): void {
  useEffect(() => {
    const sheet = sheetRef.current;
    if (!open || !sheet) return;
    let inert = new Set<Element>();
    let frame: number | undefined;

    const measure = () => {
      frame = undefined;
      const fixed = getComputedStyle(sheet).position === 'fixed';
      const next = new Set(
        fixed ? coveredParts(partsOf(document.body, sheet), sheet.getBoundingClientRect().top) : [],
      );
      for (const element of inert) if (!next.has(element)) element.removeAttribute('inert');
      for (const element of next) if (!inert.has(element)) element.setAttribute('inert', '');
      inert = next;
    };
    const schedule = () => {
      frame ??= requestAnimationFrame(measure);
    };

    measure();
    window.addEventListener('scroll', schedule, { passive: true });
    window.addEventListener('resize', schedule);
    const resized = new ResizeObserver(schedule);
    resized.observe(sheet);
    resized.observe(document.body);
    // Rows and controls that come and go move what lies under the sheet.
    const changed = new MutationObserver(schedule);
    changed.observe(document.body, { childList: true, subtree: true });
    return () => {
      if (frame !== undefined) cancelAnimationFrame(frame);
      window.removeEventListener('scroll', schedule);
      window.removeEventListener('resize', schedule);
      resized.disconnect();
      changed.disconnect();
      for (const element of inert) element.removeAttribute('inert');
    };
  }, [sheetRef, open]);
}
