/**
 * `ConfirmStep`: the in-page second step of anything that cannot be undone
 * (clear a queue, delete a session, cancel a question, remove a channel,
 * reject a request). It asks, may say what goes, and offers the action and
 * the way back, side by side.
 *
 * It takes focus as it opens, by default on the way back, so that Enter
 * right after opening never does the harm. Escape and the way back close it
 * and hand focus back to the control that opened it (`opener`, or what had
 * focus as the step opened) once the page shows it again (an `opener` made
 * again is waited for, a little). While the action is under way (`pending`)
 * neither button nor Escape answers: the outcome is on its way; both stay
 * focusable meanwhile (aria-disabled), so the keyboard's focus is not dropped
 * to the page. A second press of the action before the page renders again is
 * ignored too. An `error` stands inside the step, so the person can try again
 * or back out where they are.
 */
import { useEffect, useId, useRef, type ReactNode, type RefObject } from 'react';

/** How long a closed step's opener may take to come back and still be handed the focus. */
const OPENER_RETURN_WAIT_MS = 2_000;

/**
 * The opener takes the focus now if the page shows it; else once it does, unless the focus went
 * somewhere meanwhile. A render may show the opener's view without it for a moment (the
 * clarification overlay, as the page's first reads replace its bundle), and the focus rescue may
 * put the focus on a frame around it: that frame is not somewhere the person went.
 */
function focusOnceBack(opener: RefObject<HTMLElement | null>): void {
  const back = opener.current;
  if (back?.isConnected) {
    back.focus();
    return;
  }
  const observer = new MutationObserver(() => {
    const back = opener.current;
    if (!back?.isConnected) return;
    stop();
    const active = document.activeElement;
    if (active === null || active === document.body || active.contains(back)) back.focus();
  });
  const timer = setTimeout(stop, OPENER_RETURN_WAIT_MS);
  function stop() {
    observer.disconnect();
    clearTimeout(timer);
  }
  observer.observe(document.body, { childList: true, subtree: true });
}

export function ConfirmStep(props: {
  testId: string;
  /** Layout classes; the step's own frame by default. */
  className?: string;
  /** The question; it names the step unless `label` does. */
  prompt: ReactNode;
  /** Names the step instead of its prompt. */
  label?: string;
  /** What the step is about, above the prompt, read with it as the step's name. */
  subject?: ReactNode;
  /** What goes, or a field the action takes, below the prompt. */
  children?: ReactNode;
  error?: ReactNode;
  errorTestId?: string;
  yes: string;
  /** The way back: "Keep it", "Cancel". */
  keep: string;
  yesTestId?: string;
  keepTestId?: string;
  yesDisabled?: boolean;
  pending?: boolean;
  /** Where focus goes as the step opens: its way back, or the step itself (the next Tab reaches its first field). */
  initialFocus?: 'keep' | 'step';
  /** The control focus goes back to; what had focus as the step opened by default. */
  opener?: RefObject<HTMLElement | null>;
  /**
   * The step goes as its action starts: the focus goes back to the opener too, which then stands
   * for the action on its way (busy, `aria-disabled`), rather than falling to the page.
   */
  backOnConfirm?: boolean;
  /** Keys pressed inside stay there (Escape excepted): a view's shortcuts behind it must not act. */
  containKeys?: boolean;
  /**
   * Escape is the view's around the step, not the step's: the clarification overlay collapses,
   * the step kept open in it for when it shows again.
   */
  escapeToView?: boolean;
  onConfirm: () => void;
  onKeep: () => void;
}) {
  const promptId = useId();
  const subjectId = useId();
  const step = useRef<HTMLDivElement>(null);
  const keepButton = useRef<HTMLButtonElement>(null);
  const openedFrom = useRef<Element | null>(null);
  const initialFocus = props.initialFocus ?? 'keep';
  // Two presses before the page renders again both read `pending` as it was before the first:
  // the first one's flag holds until the next render, which shows it pending or takes the step away.
  const confirmed = useRef(false);
  useEffect(() => {
    confirmed.current = false;
  });

  useEffect(() => {
    openedFrom.current = document.activeElement;
    (initialFocus === 'keep' ? keepButton : step).current?.focus();
  }, [initialFocus]);

  const backToOpener = () => {
    const opener = props.opener;
    const fallback = openedFrom.current;
    // After the page shows the opener again (it may come back, or become enabled, with the step's closing).
    queueMicrotask(() => {
      if (opener) {
        focusOnceBack(opener);
      } else if (fallback instanceof HTMLElement && fallback.isConnected) {
        fallback.focus();
      }
    });
  };
  const keep = () => {
    props.onKeep();
    backToOpener();
  };

  const pending = props.pending ?? false;
  return (
    <div
      ref={step}
      className={props.className ?? 'confirm-step'}
      role="group"
      tabIndex={initialFocus === 'step' ? -1 : undefined}
      aria-label={props.label}
      aria-labelledby={
        props.label !== undefined
          ? undefined
          : props.subject !== undefined
            ? `${subjectId} ${promptId}`
            : promptId
      }
      data-testid={props.testId}
      onKeyDown={(event) => {
        if (event.key === 'Escape') {
          if (pending || props.escapeToView) return;
          event.preventDefault();
          keep();
        } else if (props.containKeys) {
          event.stopPropagation();
        }
      }}
    >
      {props.subject !== undefined ? <p id={subjectId}>{props.subject}</p> : null}
      <p id={promptId}>{props.prompt}</p>
      {props.children}
      {props.error !== undefined ? (
        <p className="error" role="alert" data-testid={props.errorTestId}>
          {props.error}
        </p>
      ) : null}
      <div className="confirm-step-actions">
        <button
          type="button"
          className="button button-danger"
          data-testid={props.yesTestId}
          disabled={props.yesDisabled}
          // While pending, not `disabled`: that would drop the keyboard's focus on it to the page.
          aria-disabled={pending}
          onClick={() => {
            if (pending || confirmed.current) return;
            confirmed.current = true;
            props.onConfirm();
            if (props.backOnConfirm) backToOpener();
          }}
        >
          {props.yes}
        </button>
        <button
          ref={keepButton}
          type="button"
          className="button"
          data-testid={props.keepTestId}
          aria-disabled={pending}
          onClick={() => {
            if (!pending) keep();
          }}
        >
          {props.keep}
        </button>
      </div>
    </div>
  );
}
