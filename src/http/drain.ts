/**
 * A graceful stop's view of the HTTP server (issue 16): whether it drains
 * (`/healthz` then says 503 `draining`, so a load balancer takes this
 * replica out) and which requests are still being answered, so the stop
 * waits for them, bounded, once it no longer accepts connections. A reply
 * cut by the stop would reach its client as a 502 from the balancer, and a
 * request that reached a server is never sent again. An MCP client's
 * standing stream (`GET /mcp`) carries no work and ends with its session, so
 * it is not waited for.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Timers } from '../support/index.js';

export interface Drain {
  /** Counts `server`'s requests from now on. */
  track(server: Server): void;
  /** True once the stop began. */
  draining(): boolean;
  start(): void;
  /** Resolves when no request is in flight, or after `timeoutMs`; whether none was left. */
  idle(timeoutMs: number): Promise<boolean>;
}

function standing(request: IncomingMessage): boolean {
  return request.method === 'GET' && (request.url ?? '').split('?')[0] === '/mcp';
}

export function createDrain(timers: Timers): Drain {
  let draining = false;
  let inFlight = 0;
  let settled: () => void = () => undefined;
  return {
    track(server) {
      server.on('request', (request: IncomingMessage, response) => {
        if (standing(request)) return;
        inFlight++;
        response.once('close', () => {
          inFlight--;
          if (inFlight === 0) settled();
        });
      });
    },
    draining: () => draining,
    start() {
      draining = true;
    },
    idle(timeoutMs) {
      if (inFlight === 0) return Promise.resolve(true);
      return new Promise((resolve) => {
        const timer = timers.setTimeout(() => {
          resolve(inFlight === 0);
        }, timeoutMs);
        settled = () => {
          timer.cancel();
          resolve(true);
        };
      });
    },
  };
}
