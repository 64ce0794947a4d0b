/**
 * `useDisclosure()`: a button that shows and hides a panel next to it (the
 * header's account menu on a phone). Escape, or a press outside both that
 * takes no focus of its own, closes it and hands the focus back to the
 * button: a keyboard or screen-reader user is never left on a hidden panel
 * or on the page's body. Focus moved on past the panel (Tab, or a press on a
 * link) closes it too, and stays where the person moved it.
 */
import { useCallback, useEffect, useRef, useState, type RefObject } from 'react';

export interface Disclosure {
  readonly open: boolean;
  readonly toggle: () => void;
  /** The element holding both the button and its panel. */
  readonly root: RefObject<HTMLDivElement | null>;
  readonly button: RefObject<HTMLButtonElement | null>;
}

function nowhere(): boolean {
  const active = document.activeElement;
  return active === null || active === document.body;
}

/** A press on a control is the control's, wherever the browser put the focus (Safari: nowhere). */
function onControl(target: EventTarget | null): boolean {
  return (
    target instanceof Element &&
    target.closest('a[href], button, input, select, textarea, summary, [tabindex]') !== null
  );
}

export function useDisclosure(): Disclosure {
  const [open, setOpen] = useState(false);
  const root = useRef<HTMLDivElement | null>(null);
  const button = useRef<HTMLButtonElement | null>(null);
  const toggle = useCallback(() => {
    setOpen((was) => !was);
  }, []);

  useEffect(() => {
    if (!open) return;
    const inside = (target: EventTarget | null) =>
      target instanceof Node && root.current?.contains(target) === true;
    // A button the layout no longer shows (a phone turned to a wide screen) takes no focus.
    const refocus = () => {
      if (button.current?.getClientRects().length) button.current.focus();
    };
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape' || event.defaultPrevented) return;
      event.preventDefault();
      setOpen(false);
      refocus();
    };
    // A click, not a pointerdown: by then the press has moved the focus where it goes (a touch
    // moves it only on release), so a focus left on nothing is known and only that one is taken.
    const onClick = (event: MouseEvent) => {
      if (inside(event.target)) return;
      const focusInside = inside(document.activeElement);
      setOpen(false);
      if (focusInside || (nowhere() && !onControl(event.target))) refocus();
    };
    const onFocusIn = (event: FocusEvent) => {
      if (!inside(event.target)) setOpen(false);
    };
    document.addEventListener('keydown', onKey);
    document.addEventListener('click', onClick);
    document.addEventListener('focusin', onFocusIn);
    return () => {
      document.removeEventListener('keydown', onKey);
      document.removeEventListener('click', onClick);
      document.removeEventListener('focusin', onFocusIn);
    };
  }, [open]);

  return { open, toggle, root, button };
}
