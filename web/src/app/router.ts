/**
 * A small history router: `/` (inbox), `/sessions/:id`, `/tasks/new` (start
 * a task), `/decisions` (the
 * decision log), `/settings` (devices, tokens, notifications), `/people`
 * (users, workspaces and their members), `/answer`
 * (an answer link's confirm page, one of two routes that need no session),
 * `/sign-in` (where a sign-in link lands, its secret in the fragment) and
 * `/signed-out` (how to get a sign-in link; where a spent link leads).
 */
import { useSyncExternalStore } from 'react';
import { webSessionPath } from '../../../src/wire/constants.js';

export type Route =
  | { name: 'inbox' }
  | { name: 'session'; sessionId: string }
  | { name: 'decisions' }
  | { name: 'settings' }
  | { name: 'people' }
  | { name: 'newTask' }
  | { name: 'answer' }
  | { name: 'signIn' }
  | { name: 'signedOut' };

export function parseRoute(pathname: string): Route {
  if (/^\/decisions\/?$/.test(pathname)) return { name: 'decisions' };
  if (/^\/settings\/?$/.test(pathname)) return { name: 'settings' };
  if (/^\/people\/?$/.test(pathname)) return { name: 'people' };
  if (/^\/tasks\/new\/?$/.test(pathname)) return { name: 'newTask' };
  if (/^\/answer\/?$/.test(pathname)) return { name: 'answer' };
  if (/^\/signed-out\/?$/.test(pathname)) return { name: 'signedOut' };
  if (/^\/sign-in\/?$/.test(pathname)) return { name: 'signIn' };
  const match = /^\/sessions\/([^/]+)\/?$/.exec(pathname);
  if (match?.[1]) return { name: 'session', sessionId: decodeURIComponent(match[1]) };
  return { name: 'inbox' };
}

const listeners = new Set<() => void>();

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  window.addEventListener('popstate', listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('popstate', listener);
  };
}

/**
 * A session's page opened for one of its questions (`?pending=`): a session
 * may wait on several, and the one a person picked is the one it shows.
 */
export function questionPath(sessionId: string, pendingId: string): string {
  return webSessionPath(sessionId, pendingId);
}

/** The question the address picks, on a session's page. */
export function pendingOfLocation(): string | undefined {
  return new URLSearchParams(window.location.search).get('pending') ?? undefined;
}

/** Once read: the pick is this visit's, and the session's address stays its own. */
export function forgetPendingOfLocation(): void {
  if (pendingOfLocation() !== undefined) {
    window.history.replaceState(null, '', window.location.pathname);
  }
}

export function navigate(path: string): void {
  if (window.location.pathname === path) return;
  window.history.pushState(null, '', path);
  for (const listener of [...listeners]) listener();
}

export function useRoute(): Route {
  const pathname = useSyncExternalStore(subscribe, () => window.location.pathname);
  return parseRoute(pathname);
}
