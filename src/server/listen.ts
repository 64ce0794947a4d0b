/**
 * The HTTP server Clarion listens with: Hono's app over Node's `http`, the
 * events WebSocket on the same port (a refused upgrade answered with its body),
 * and keep-alive that outlives its clients'.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import type { WebSocketServer } from 'ws';
import { HTTP_KEEP_ALIVE_TIMEOUT_MS } from '../tunables.js';
import { withWholeUpgradeRefusals } from './upgrade-refusal.js';

export class ListenError extends Error {
  constructor(
    readonly code: 'port_in_use' | 'listen_failed',
    message: string,
    cause: unknown,
  ) {
    super(message, { cause });
    this.name = 'ListenError';
  }
}

export function createHttpServer(
  fetch: (request: Request, env?: unknown) => Response | Promise<Response>,
  sockets: WebSocketServer,
): Server {
  const server = createAdaptorServer({
    fetch: withWholeUpgradeRefusals(fetch),
    websocket: { server: sockets },
  }) as Server;
  // Outlive the clients' idle keep-alive (Node's and undici's are about 5 s): a server
  // that drops an idle socket first races a request the client just wrote on it.
  server.keepAliveTimeout = HTTP_KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = HTTP_KEEP_ALIVE_TIMEOUT_MS + 1_000;
  return server;
}

/** Listens on `host:port`; resolves with the port taken (the one asked for, or any for 0). */
export function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'EADDRINUSE'
          ? new ListenError('port_in_use', `port ${port} on ${host} is already in use`, error)
          : new ListenError(
              'listen_failed',
              `cannot listen on ${host}:${port}: ${error.message}`,
              error,
            ),
      );
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}
