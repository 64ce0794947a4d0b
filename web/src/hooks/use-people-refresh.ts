/**
 * `usePeopleRefresh()`: a number that grows whenever the People page should
 * read users, workspaces and members again: when the person's own
 * memberships change (`access_changed`), when users, workspaces or members
 * they list change (`people_changed`: an admin lists everyone's, a member
 * their workspaces' members), when the events socket's subscription is
 * confirmed (a change made before it has no frame, and the page may have read
 * before it: a full load), when the page is shown again (another tab,
 * another window) and after its own changes (`bump`).
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
    const unsubscribePeople = sync.onPeopleChanged(bump);
    const shown = () => {
      if (document.visibilityState === 'visible') bump();
    };
    document.addEventListener('visibilitychange', shown);
    window.addEventListener('focus', bump);
    return () => {
      unsubscribe();
      unsubscribePeople();
      document.removeEventListener('visibilitychange', shown);
      window.removeEventListener('focus', bump);
    };
  }, [sync, bump]);
  return { revision, bump };
}
