/**
 * Where a sign-in leads: a notification links to a session, and a browser
 * that is not signed in shows how to sign in there instead. The session's
 * path is kept in localStorage (a sign-in link from a QR code or a mail
 * opens in another tab) and a sign-in that follows within
 * `RETURN_PATH_KEPT_MS` goes back to it, once. Only a session's own path is
 * kept or taken: a stored value can never send the page to another site.
 */
const STORAGE_KEY = 'clarion.return_path';

/** Long enough to get a link from another device or the server's command line. */
export const RETURN_PATH_KEPT_MS = 30 * 60_000;

const SESSION_PATH = /^\/sessions\/[^/?#\\]+$/;

export function rememberReturnPath(path: string, now: number = Date.now()): void {
  if (!SESSION_PATH.test(path)) return;
  try {
    window.localStorage.setItem(STORAGE_KEY, JSON.stringify({ path, at: now }));
  } catch {
    // Storage can be unavailable (private modes): the sign-in then leads to the inbox.
  }
}

/** The kept path if it is fresh, else undefined; either way it is kept no longer. */
export function takeReturnPath(now: number = Date.now()): string | undefined {
  let kept: unknown;
  try {
    const raw = window.localStorage.getItem(STORAGE_KEY);
    window.localStorage.removeItem(STORAGE_KEY);
    kept = raw === null ? undefined : JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (typeof kept !== 'object' || kept === null) return undefined;
  const { path, at } = kept as { path?: unknown; at?: unknown };
  if (typeof path !== 'string' || !SESSION_PATH.test(path)) return undefined;
  if (typeof at !== 'number' || now - at < 0 || now - at > RETURN_PATH_KEPT_MS) return undefined;
  return path;
}
