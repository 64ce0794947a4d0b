/**
 * The whole server in this process, on a fresh SQLite database, with the edge
 * request agent (`edge-request-fixtures.ts`) as its `edger` profile: the
 * world of the tests that drive a real ACP agent's requests at a turn's
 * edges. `useEdgeRequestServer` registers its own hooks: one agent script
 * for the file, one server and database per test, each stopped after it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { loadAgentProfiles } from '../../src/agents/profiles.js';
import { silentLogger } from '../../src/observability/logger.js';
import { startServer, type RunningServer } from '../../src/server.js';
import type { SessionView } from '../../src/wire/index.js';
import { freshDatabase, type TestDatabase } from '../support/databases.js';
import { bearerApi, serverConfig, type ApiCall } from '../support/in-process-server.js';
import { writeEdgeRequestAgent } from './edge-request-fixtures.js';

export interface Started {
  sessionId: string;
  taskId: string;
}

export interface EdgeRequestServer {
  /** Where the agent reads the test's go-ahead files and writes what it heard. */
  readonly dir: string;
  readonly api: ApiCall;
  readonly serve: () => Promise<RunningServer>;
  /** A task whose agent is the edge request agent, started with `prompt`. */
  readonly startTask: (prompt: string) => Promise<Started>;
  readonly sessionOf: (started: Started) => Promise<SessionView | undefined>;
  /** What the agent heard back for its `n`th request of `tag`. */
  readonly heardBy: (tag: string, n: number) => unknown;
}

export function useEdgeRequestServer(adminToken: string): EdgeRequestServer {
  let dir = '';
  let agentPath = '';
  let database: TestDatabase | undefined;
  let server: RunningServer | undefined;
  let api: ApiCall | undefined;
  const call: ApiCall = <T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
  ) => {
    if (!api) throw new Error('serve() first');
    return api<T>(method, path, body);
  };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'clarion-edge-requests-'));
    agentPath = writeEdgeRequestAgent(dir);
  });

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  afterEach(async () => {
    await server?.close();
    server = undefined;
    api = undefined;
    await database?.dispose();
    database = undefined;
  });

  return {
    get dir() {
      return dir;
    },
    api: call,
    serve: async () => {
      database = await freshDatabase('sqlite');
      const agentProfiles = loadAgentProfiles({
        CLARION_AGENT_PROFILES: JSON.stringify({
          edger: { command: process.execPath, args: [agentPath] },
        }),
      });
      server = await startServer(
        serverConfig(database, adminToken, { agentProfiles }),
        silentLogger,
      );
      api = bearerApi(server.url, adminToken);
      return server;
    },
    startTask: async (prompt) => {
      const created = await call('POST', '/api/v1/tasks', {
        title: prompt,
        agent_profile: 'edger',
        prompt,
      });
      expect(created.status).toBe(201);
      return {
        sessionId: (created.json.session as { id: string }).id,
        taskId: (created.json.task as { id: string }).id,
      };
    },
    sessionOf: async ({ sessionId, taskId }) => {
      const read = await call<{ sessions: SessionView[] }>(
        'GET',
        `/api/v1/tasks/${taskId}/sessions`,
      );
      return read.json.sessions.find((session) => session.id === sessionId);
    },
    heardBy: (tag, n) =>
      JSON.parse(readFileSync(join(dir, `${tag}-${String(n)}.json`), 'utf8')) as unknown,
  };
}
