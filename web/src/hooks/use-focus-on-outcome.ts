/**
 * `useFocusOnOutcome(outcome)`: after a form's action lands, the keyboard's
 * focus moves to what it made (`outcome`, a `tabIndex={-1}` line), unless
 * the person moved on meanwhile. Call the returned function with the form
 * once the result is rendered: its submit button, disabled as its field
 * empties, has dropped the focus to the page by then.
 */
import { useEffect, useState, type RefObject } from 'react';

export function useFocusOnOutcome(outcome: RefObject<HTMLElement | null>): (from: Element) => void {
  const [from, setFrom] = useState<Element | null>(null);
  useEffect(() => {
    if (from === null) return;
    setFrom(null);
    const active = document.activeElement;
    if (active === null || active === document.body || from.contains(active)) {
      outcome.current?.focus();
    }
  }, [from, outcome]);
  return setFrom;
}
