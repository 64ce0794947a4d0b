/**
 * `usePeopleRefresh()`: a number that grows whenever the People page should
 * read users, workspaces and members again. The events socket says only when
 * the person's own memberships change (`access_changed`); what others change
 * among themselves reaches no socket, so the page also reads again when it
 * is shown again (another tab, another window) and after its own changes
 * (`bump`).
 */
import { useCallback, useEffect, useState } from 'react';
import { useServices } from '../app/services.js';

export function usePeopleRefresh(): { revision: number; bump: () => void } {
  const { sync } = useServices();
  const [revision, setRevision] = useState(0);
  const bump = useCallback(() => {
    setRevision((value) => value + 1);
  }, []);
  useEffect(() => {
    const unsubscribe = sync.onAccessChanged(bump);
    const shown = () => {
      if (document.visibilityState === 'visible') bump();
    };
    document.addEventListener('visibilitychange', shown);
    window.addEventListener('focus', bump);
    return () => {
      unsubscribe();
      document.removeEventListener('visibilitychange', shown);
      window.removeEventListener('focus', bump);
    };
  }, [sync, bump]);
  return { revision, bump };
}
