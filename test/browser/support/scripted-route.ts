/**
 * Failures injected at the browser's edge: the first requests matching a
 * pattern meet the scripted faults in order, every later one reaches the
 * server unchanged.
 */
import type { Page, Route, WebSocketRoute } from 'playwright-core';
import { EVENTS_SOCKET } from './harness.js';
import { liveRoute } from './live-route.js';

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
  await liveRoute(page, pattern, async (route) => {
    const fault = faults[seen.attempts];
    seen.attempts++;
    if (fault === undefined) await route.continue();
    else await inject(route, fault);
  });
  return seen;
}

export interface Outage {
  /** Answers that reached the server (none do while it is down). */
  readonly reached: number;
  /** Drops the events socket and refuses every answer until `end`. */
  begin(): Promise<void>;
  end(): void;
}

/**
 * The server unreachable from the page, on demand: the events socket closes
 * and will not reconnect, and requests matching `respond` fail to connect.
 * Register before the page opens, so the first socket is the one dropped.
 */
export async function scriptOutage(page: Page, respond: string): Promise<Outage> {
  let down = false;
  let reached = 0;
  const sockets: WebSocketRoute[] = [];
  await page.routeWebSocket(EVENTS_SOCKET, (socket) => {
    if (down) {
      void socket.close({ code: 1011, reason: 'test: server unreachable' });
      return;
    }
    socket.connectToServer();
    sockets.push(socket);
  });
  await liveRoute(page, respond, async (route: Route) => {
    if (down) {
      await route.abort('connectionrefused');
      return;
    }
    reached++;
    await route.continue();
  });
  return {
    get reached() {
      return reached;
    },
    async begin() {
      down = true;
      await Promise.all(
        sockets.map((socket) => socket.close({ code: 1012, reason: 'test: server unreachable' })),
      );
    },
    end() {
      down = false;
    },
  };
}
