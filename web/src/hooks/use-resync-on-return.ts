/**
 * `useResyncOnReturn(sync)`: when the page comes back after being hidden a
 * while, or the browser says it is online again, the events socket connects
 * again and everything is read again (`ModelSync.resync`). A phone that
 * slept keeps a socket that looks open and hears nothing; its inbox would
 * stay as it was until TCP gave up on it.
 */
import { useEffect } from 'react';
import type { ModelSync } from '../model/sync.js';

/** Hidden for less than this, the socket very likely lived through it: nothing is read again. */
export const RESYNC_AFTER_HIDDEN_MS = 30_000;

export function useResyncOnReturn(sync: ModelSync, active: boolean): void {
  useEffect(() => {
    if (!active) return;
    let hiddenAt: number | undefined;
    const onVisibility = () => {
      if (document.visibilityState === 'hidden') {
        hiddenAt = Date.now();
        return;
      }
      const away = hiddenAt === undefined ? 0 : Date.now() - hiddenAt;
      hiddenAt = undefined;
      if (away >= RESYNC_AFTER_HIDDEN_MS) sync.resync();
    };
    const onOnline = () => {
      sync.resync();
    };
    document.addEventListener('visibilitychange', onVisibility);
    window.addEventListener('online', onOnline);
    return () => {
      document.removeEventListener('visibilitychange', onVisibility);
      window.removeEventListener('online', onOnline);
    };
  }, [sync, active]);
}
