/**
 * The composition root: opens the store (schema first), builds the app and
 * listens. Work is admitted only once every start-up step has succeeded; any
 * failure before `listen` leaves nothing served.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createAdaptorServer } from '@hono/node-server';
import type { Config } from './config.js';
import { createApp } from './http/app.js';
import type { Logger } from './observability/logger.js';
import { openStore, type OpenOptions, type Store } from './store/index.js';

export interface RunningServer {
  readonly url: string;
  readonly store: Store;
  close(): Promise<void>;
}

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

export async function startServer(
  config: Config,
  logger: Logger,
  options: OpenOptions = {},
): Promise<RunningServer> {
  const store = await openStore(config.database, options);
  logger.info({ driver: store.driver, schema: store.schema }, 'store ready');

  const app = createApp({ store });
  const server = createAdaptorServer({ fetch: app.fetch }) as Server;
  try {
    await listen(server, config.host, config.port);
  } catch (error) {
    await store.close();
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  logger.info({ url }, 'listening');

  return {
    url,
    store,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
        server.closeAllConnections();
      });
      await store.close();
    },
  };
}

function listen(server: Server, host: string, port: number): Promise<void> {
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
      resolve();
    });
  });
}
