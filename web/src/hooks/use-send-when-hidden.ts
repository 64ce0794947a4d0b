/**
 * `useSendWhenHidden(pending)`: a one-tap answer held for its undo window goes
 * at once when its page is hidden or left, or its view unmounts. A phone
 * freezes a hidden page's timers, so the window would not end until the
 * person came back to the page, and a closed tab runs no timer at all:
 * leaving is not Undo. Sent as the page goes, the request is `keepalive`, so
 * it outlives the page.
 */
import { useEffect } from 'react';

/** The held answer's sender, if one is held; `keepalive` when the page is going. */
export type HeldSend = (keepalive: boolean) => void;

export function useSendWhenHidden(pending: { readonly current: HeldSend | undefined }): void {
  useEffect(() => {
    const going = () => pending.current?.(true);
    const onVisibility = () => {
      if (document.visibilityState === 'hidden') going();
    };
    document.addEventListener('visibilitychange', onVisibility);
    window.addEventListener('pagehide', going);
    return () => {
      document.removeEventListener('visibilitychange', onVisibility);
      window.removeEventListener('pagehide', going);
      pending.current?.(false);
    };
  }, [pending]);
}
