/**
 * `useStickyHeaderInset(header)`: keeps the page's top scroll padding as tall
 * as the sticky header, so whatever the browser scrolls into view (a control
 * the keyboard focuses going up the page, a row `scrollIntoView` brings, a
 * `#fragment`) stops below the header instead of under it (WCAG 2.4.11,
 * focus not obscured). The header is one to three rows depending on the
 * width, the language and the text size, so it is measured, not assumed.
 */
import { useEffect, type RefObject } from 'react';

/** The custom property `html`'s `scroll-padding-top` reads (styles.css). */
const INSET = '--sticky-header-height';

export function useStickyHeaderInset(header: RefObject<HTMLElement | null>): void {
  useEffect(() => {
    const element = header.current;
    if (!element) return;
    const root = document.documentElement;
    const observer = new ResizeObserver(() => {
      root.style.setProperty(INSET, `${String(element.offsetHeight)}px`);
    });
    observer.observe(element);
    return () => {
      observer.disconnect();
      root.style.removeProperty(INSET);
    };
  }, [header]);
}
