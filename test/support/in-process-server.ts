/**
 * The whole server in this process on a real loopback port, with a preset
 * admin token and the built-in agent profiles, over a fresh database.
 */
import { loadAgentProfiles } from '../../src/agents/profiles.js';
import type { Config } from '../../src/config.js';
import { silentLogger } from '../../src/observability/logger.js';
import { startServer, type RunningServer, type ServerOptions } from '../../src/server.js';
import type { Driver } from '../../src/store/index.js';
import { freshDatabase, type TestDatabase } from './databases.js';

export interface ApiReply<T> {
  status: number;
  json: T;
}

/** One REST call as the admin, JSON in and out. */
export type ApiCall = <T = Record<string, unknown>>(
  method: string,
  path: string,
  body?: unknown,
) => Promise<ApiReply<T>>;

export interface InProcessServer {
  server: RunningServer;
  api: ApiCall;
  /** The server's database, still there after `stop` for reading what it left. */
  database: TestDatabase;
  /** Closes the server once; `dispose` calls it too. */
  stop(): Promise<void>;
  dispose(): Promise<void>;
}

export function bearerApi(baseUrl: string, token: string): ApiCall {
  return async <T>(method: string, path: string, body?: unknown): Promise<ApiReply<T>> => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, json: (await response.json()) as T };
  };
}

/** A server's configuration on `database`, on a free loopback port, with `adminToken` preset. */
export function serverConfig(
  database: TestDatabase,
  adminToken: string,
  overrides: Partial<Config> = {},
): Config {
  return {
    host: '127.0.0.1',
    port: 0,
    dataDir: database.target.driver === 'sqlite' ? database.target.dataDir : '/tmp',
    database: database.target,
    logLevel: 'silent',
    adminToken,
    publicOrigin: undefined,
    agentProfiles: loadAgentProfiles({}),
    ...overrides,
  };
}

export async function startInProcessServer(
  driver: Driver,
  adminToken: string,
  options: ServerOptions = {},
  overrides: Partial<Config> = {},
): Promise<InProcessServer> {
  // The server migrates with the default steps unless the test brings its own.
  const database: TestDatabase = await freshDatabase(driver, {
    migrated: options.steps === undefined,
  });
  const server = await startServer(
    serverConfig(database, adminToken, overrides),
    silentLogger,
    options,
  );
  let stopped: Promise<void> | undefined;
  const stop = () => (stopped ??= server.close());
  return {
    server,
    api: bearerApi(server.url, adminToken),
    database,
    stop,
    dispose: async () => {
      await stop();
      await database.dispose();
    },
  };
}
