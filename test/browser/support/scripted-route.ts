/**
 * Failures injected at the browser's edge: the first requests matching a
 * pattern meet the scripted faults in order, every later one reaches the
 * server unchanged.
 */
import type { Page, Route } from 'playwright-core';

export type Fault =
  /** 503 `temporarily_unavailable`, as the server's pre-claim budget answers. */
  | 'unavailable'
  /** 500 `internal`. */
  | 'internal'
  /** A 200 whose body is cut off. */
  | 'malformed'
  /** The connection fails. */
  | 'network'
  /** Never answered: only the client's own deadline ends it. */
  | 'silent';

export interface ScriptedRoute {
  /** Requests seen so far, faulted or passed through. */
  readonly attempts: number;
}

async function inject(route: Route, fault: Fault): Promise<void> {
  switch (fault) {
    case 'unavailable':
      await route.fulfill({
        status: 503,
        contentType: 'application/json',
        body: JSON.stringify({
          error: 'clarification response is temporarily unavailable',
          code: 'temporarily_unavailable',
        }),
      });
      return;
    case 'internal':
      await route.fulfill({
        status: 500,
        contentType: 'application/json',
        body: JSON.stringify({ error: 'boom', code: 'internal' }),
      });
      return;
    case 'malformed':
      await route.fulfill({ status: 200, contentType: 'application/json', body: '{"claimed":' });
      return;
    case 'network':
      await route.abort('failed');
      return;
    case 'silent':
      return;
  }
}

export async function scriptRoute(
  page: Page,
  pattern: string,
  faults: readonly Fault[],
): Promise<ScriptedRoute> {
  const seen = { attempts: 0 };
  await page.route(pattern, async (route) => {
    const fault = faults[seen.attempts];
    seen.attempts++;
    if (fault === undefined) await route.continue();
    else await inject(route, fault);
  });
  return seen;
}
