/**
 * `useTriageKeys(list, open)`: J and K move the focus down and up the rows
 * under `list` (elements with `data-triage-key`), Enter on a focused row
 * opens its session (at its question, for a question's row). Typing in a field, or a key with Ctrl, Alt or Meta, is
 * left alone; Enter on a button inside a row is that button's.
 */
import { useEffect, type RefObject } from 'react';

function isEditable(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return (
    target.isContentEditable ||
    target.tagName === 'TEXTAREA' ||
    target.tagName === 'INPUT' ||
    target.tagName === 'SELECT'
  );
}

export function useTriageKeys(
  list: RefObject<HTMLElement | null>,
  open: (sessionId: string, pendingId: string | undefined) => void,
): void {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
      if (isEditable(event.target) || !list.current) return;
      const rows = [...list.current.querySelectorAll<HTMLElement>('[data-triage-key]')];
      const active = document.activeElement;
      const current = rows.findIndex((row) => active !== null && row.contains(active));
      const key = event.key.toLowerCase();
      if (key === 'j' || key === 'k') {
        if (rows.length === 0) return;
        const step = key === 'j' ? 1 : -1;
        const next =
          current === -1
            ? step === 1
              ? 0
              : rows.length - 1
            : Math.max(0, Math.min(rows.length - 1, current + step));
        event.preventDefault();
        rows[next]?.focus();
        rows[next]?.scrollIntoView({ block: 'nearest' });
        return;
      }
      const row = rows[current];
      if (event.key === 'Enter' && row && active === row && row.dataset.sessionId) {
        event.preventDefault();
        open(row.dataset.sessionId, row.dataset.pendingId);
      }
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
    };
  }, [list, open]);
}
