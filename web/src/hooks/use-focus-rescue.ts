/**
 * `useFocusRescue(scope, rescue)`: a ref for a container whose answer
 * controls go while an answer is on its way (a confirm step gives way to the
 * choices it answered) and whose cards move (to a settled list) or go once
 * decided. Either dropped the focus of a person who answered with the
 * keyboard on the page's body: a screen reader went quiet and the next Tab
 * started over. When the focus leaves an element matching `scope` because
 * that element was disabled or removed, and goes nowhere, it goes to the
 * button that now stands for the answer on its way (`aria-busy`, in the same
 * request's card), else `rescue` gets where it was (its request, its inbox
 * row and that row's place) and says what takes the focus. Focus the person
 * moved elsewhere is never taken back. Busy buttons are `aria-disabled`, so
 * the one pressed keeps the focus and none of this runs.
 */
import { useCallback, useRef } from 'react';

/** Where the lost focus was: the request's card and the inbox row around it, if any. */
export interface LostFocus {
  requestId: string | undefined;
  triageKey: string | undefined;
  /** The row's index among `[data-triage-key]` rows of the container when it had focus. */
  rowIndex: number;
}

function isLost(element: HTMLElement): boolean {
  return !element.isConnected || element.matches(':disabled');
}

function nowhere(): boolean {
  const active = document.activeElement;
  return active === null || active === document.body;
}

/** A callback ref: stable, so a render never drops what it watches (React runs its cleanup). */
export function useFocusRescue(
  scope: string,
  rescue: (lost: LostFocus, root: HTMLElement) => HTMLElement | null | undefined,
): (root: HTMLElement | null) => (() => void) | undefined {
  const rescueRef = useRef(rescue);
  rescueRef.current = rescue;
  return useCallback(
    (root: HTMLElement | null) => {
      if (!root) return undefined;
      const timers = new Set<ReturnType<typeof setTimeout>>();
      const onFocusOut = (event: FocusEvent) => {
        const target = event.target;
        if (event.relatedTarget !== null || !(target instanceof HTMLElement)) return;
        if (!target.closest(scope)) return;
        // Read now: a row that is being removed is still in its list while this runs.
        const row = target.closest<HTMLElement>('[data-triage-key]');
        const request = target.closest<HTMLElement>('[data-request-id]');
        const where: LostFocus = {
          requestId: request?.dataset.requestId,
          triageKey: row?.dataset.triageKey,
          rowIndex: row ? [...root.querySelectorAll('[data-triage-key]')].indexOf(row) : -1,
        };
        // Chromium blurs a removed element during its removal and a disabled one when it next
        // lays the page out: either way React's render is over a task later.
        const timer = setTimeout(() => {
          timers.delete(timer);
          if (!isLost(target) || !nowhere()) return;
          const successor = request?.isConnected
            ? request.querySelector<HTMLElement>('button[aria-busy="true"]')
            : null;
          (successor ?? rescueRef.current(where, root))?.focus();
        }, 0);
        timers.add(timer);
      };
      root.addEventListener('focusout', onFocusOut);
      return () => {
        root.removeEventListener('focusout', onFocusOut);
        for (const timer of timers) clearTimeout(timer);
      };
    },
    [scope],
  );
}
