/**
 * `liveRoute(page, pattern, handler)`: `page.route` that is in force once it
 * returns. The first route on a page that has already loaded turns on
 * Chromium's request interception, and Chromium acknowledges that before
 * the page's renderer has switched over: a request the page sends right
 * after (Enter pressed on the next line) can still go straight to the
 * server, and a test holding it would wait for nothing. A probe request the
 * routes answer proves the switch has happened.
 */
import { randomUUID } from 'node:crypto';
import type { Page, Route } from 'playwright-core';

/** Probes, 20 ms apart: interception on a loaded page takes effect well within a second. */
const PROBES = 250;
const PROBE_GAP_MS = 20;
/** A status the server never answers a GET with, so only the probe route can have answered. */
const PROBE_STATUS = 299;

export async function liveRoute(
  page: Page,
  pattern: Parameters<Page['route']>[0],
  handler: (route: Route) => Promise<void> | void,
): Promise<void> {
  await page.route(pattern, handler);
  await routesInForce(page);
}

/** Waits until the page's own requests meet the routes already set on it. */
export async function routesInForce(page: Page): Promise<void> {
  // A page yet to load its first document loads it with the routes in force already.
  if (!/^https?:/.test(page.url())) return;
  const probe = `/__route-probe/${randomUUID()}`;
  const answer = (route: Route) => route.fulfill({ status: PROBE_STATUS });
  await page.route(`**${probe}`, answer);
  try {
    for (let probes = 1; ; probes++) {
      const status = await page.evaluate(
        (url) => fetch(url).then((response) => response.status),
        probe,
      );
      if (status === PROBE_STATUS) return;
      if (probes === PROBES) {
        throw new Error(`the page's requests still bypass its routes after ${probes} probes`);
      }
      await new Promise((resolve) => setTimeout(resolve, PROBE_GAP_MS));
    }
  } finally {
    await page.unroute(`**${probe}`, answer);
  }
}
