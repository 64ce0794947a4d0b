/**
 * Whole servers in this process on one database: one on SQLite, or several
 * replicas on one PostgreSQL. A test opens the database, serves what it
 * needs, and keeps the sockets it opened; `dispose` (the suite's
 * `afterEach`) closes the sockets, then the servers, then the database.
 */
import type { WebSocket } from 'ws';
import { silentLogger } from '../../src/observability/logger.js';
import { startServer, type RunningServer, type ServerOptions } from '../../src/server.js';
import type { Driver } from '../../src/store/index.js';
import { freshDatabase, type FreshDatabaseOptions, type TestDatabase } from './databases.js';
import { serverConfig } from './in-process-server.js';

export interface InProcessReplicas {
  open(driver: Driver, options?: FreshDatabaseOptions): Promise<TestDatabase>;
  /** A server on the opened database; `options` replace the suite's. */
  serve(replicaId: string, options?: ServerOptions): Promise<RunningServer>;
  keep(socket: WebSocket): WebSocket;
  dispose(): Promise<void>;
}

export function inProcessReplicas(
  adminToken: string,
  suiteOptions: ServerOptions = {},
): InProcessReplicas {
  let database: TestDatabase | undefined;
  const servers: RunningServer[] = [];
  const sockets: WebSocket[] = [];
  return {
    async open(driver, options) {
      database = await freshDatabase(driver, options);
      return database;
    },
    async serve(replicaId, options = suiteOptions) {
      if (!database) throw new Error('open a database first');
      const server = await startServer(
        serverConfig(database, adminToken, { replicaId }),
        silentLogger,
        options,
      );
      servers.push(server);
      return server;
    },
    keep(socket) {
      sockets.push(socket);
      return socket;
    },
    async dispose() {
      for (const socket of sockets.splice(0)) socket.terminate();
      for (const server of servers.splice(0)) await server.close();
      await database?.dispose();
      database = undefined;
    },
  };
}
