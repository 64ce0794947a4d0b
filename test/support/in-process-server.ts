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

export interface InProcessServer {
  server: RunningServer;
  dispose(): Promise<void>;
}

export async function startInProcessServer(
  driver: Driver,
  adminToken: string,
  options: ServerOptions = {},
): Promise<InProcessServer> {
  const database: TestDatabase = await freshDatabase(driver);
  const config: Config = {
    host: '127.0.0.1',
    port: 0,
    dataDir: database.target.driver === 'sqlite' ? database.target.dataDir : '/tmp',
    database: database.target,
    logLevel: 'silent',
    adminToken,
    publicOrigin: undefined,
    agentProfiles: loadAgentProfiles({}),
  };
  const server = await startServer(config, silentLogger, options);
  return {
    server,
    dispose: async () => {
      await server.close();
      await database.dispose();
    },
  };
}
