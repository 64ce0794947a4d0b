/**
 * An agent's token lives only while its agent process runs (issue 17,
 * finding 4): the real ACP host and demo agent, the real server over a real
 * socket, both dialects. The host is wrapped only to read the token it hands
 * the agent, which a person never sees.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createAcpHost, type AcpHost } from '../../src/agents/acp-host/index.js';
import { loadAgentProfiles } from '../../src/agents/profiles.js';
import type { Config } from '../../src/config.js';
import { silentLogger } from '../../src/observability/logger.js';
import { startServer, type RunningServer } from '../../src/server.js';
import type { DatabaseTarget, Driver } from '../../src/store/index.js';
import { eventually } from '../support/clarification-harness.js';
import { DRIVERS, freshDatabase, type TestDatabase } from '../support/databases.js';
import { bearerApi } from '../support/in-process-server.js';

const ADMIN_TOKEN = 'agent-tokens-admin-token-0123456789';

interface Recorded {
  host: AcpHost;
  /** The MCP token each session's agent was started with, latest start last. */
  tokens: Map<string, string>;
}

function recordingHost(): Recorded {
  const inner = createAcpHost();
  const tokens = new Map<string, string>();
  const host: AcpHost = {
    ...inner,
    start: (launch) => {
      tokens.set(launch.sessionId, launch.mcp.token);
      return inner.start(launch);
    },
  };
  return { host, tokens };
}

function configFor(target: DatabaseTarget): Config {
  const profiles = new Map(loadAgentProfiles({}));
  profiles.set('missing', {
    name: 'missing',
    command: '/nonexistent/clarion-agent-that-is-not-there',
    args: [],
    env: {},
  });
  return {
    host: '127.0.0.1',
    port: 0,
    dataDir: target.driver === 'sqlite' ? target.dataDir : '/tmp',
    database: target,
    logLevel: 'silent',
    adminToken: ADMIN_TOKEN,
    publicOrigin: undefined,
    agentProfiles: profiles,
  };
}

async function statusOf(server: RunningServer, token: string): Promise<number> {
  return (await bearerApi(server.url, token)('GET', '/api/v1/me')).status;
}

async function agentTokenRows(server: RunningServer): Promise<number> {
  const rows = await server.store.db
    .selectFrom('api_tokens')
    .select('id')
    .where('kind', '=', 'agent')
    .execute();
  return rows.length;
}

describe.each(DRIVERS)('agent tokens on %s', (driver: Driver) => {
  let database: TestDatabase | undefined;
  const running: RunningServer[] = [];

  async function start(recorded: Recorded): Promise<RunningServer> {
    database ??= await freshDatabase(driver, { migrated: true });
    const server = await startServer(configFor(database.target), silentLogger, {
      host: recorded.host,
    });
    running.push(server);
    return server;
  }

  async function stop(server: RunningServer): Promise<void> {
    running.splice(running.indexOf(server), 1);
    await server.close();
  }

  afterEach(async () => {
    for (const server of running.splice(0)) await server.close();
    await database?.dispose();
    database = undefined;
  });

  /** Starts a task whose agent asks a question and waits; its token, once it works. */
  async function waitingAgent(
    server: RunningServer,
    recorded: Recorded,
  ): Promise<{ sessionId: string; taskId: string; token: string }> {
    const created = await bearerApi(server.url, ADMIN_TOKEN)<{
      task: { id: string };
      session: { id: string };
    }>('POST', '/api/v1/tasks', { title: 'token life', prompt: '/ask' });
    expect(created.status).toBe(201);
    const sessionId = created.json.session.id;
    await eventually(() => Promise.resolve(recorded.tokens.has(sessionId)), 15_000);
    const token = recorded.tokens.get(sessionId) ?? '';
    await eventually(async () => {
      const pending = await bearerApi(server.url, ADMIN_TOKEN)<{
        bundles: { session_id: string }[];
      }>('GET', '/api/v1/pending');
      return pending.json.bundles.some((bundle) => bundle.session_id === sessionId);
    }, 15_000);
    expect(await statusOf(server, token)).toBe(200);
    return { sessionId, taskId: created.json.task.id, token };
  }

  it('is refused once its agent process crashed', async () => {
    const recorded = recordingHost();
    const server = await start(recorded);
    const { sessionId, token } = await waitingAgent(server, recorded);
    process.kill(recorded.host.pid(sessionId) ?? 0, 'SIGKILL');
    await eventually(async () => (await statusOf(server, token)) === 401, 15_000);
  });

  it('is refused once its agent was stopped with its session', async () => {
    const recorded = recordingHost();
    const server = await start(recorded);
    const { sessionId, token } = await waitingAgent(server, recorded);
    const deleted = await bearerApi(server.url, ADMIN_TOKEN)(
      'DELETE',
      `/api/v1/sessions/${sessionId}`,
    );
    expect(deleted.status).toBe(200);
    await eventually(async () => (await statusOf(server, token)) === 401, 15_000);
  });

  it('does not outlive a shutdown, and a restart refuses it', async () => {
    const first = recordingHost();
    const before = await start(first);
    const { token } = await waitingAgent(before, first);
    await stop(before);

    const after = await start(recordingHost());
    expect(await agentTokenRows(after)).toBe(0);
    expect(await statusOf(after, token)).toBe(401);
  });

  it('is revoked when its agent never started', async () => {
    const recorded = recordingHost();
    const server = await start(recorded);
    const api = bearerApi(server.url, ADMIN_TOKEN);
    const created = await api<{ task: { id: string }; session: { id: string } }>(
      'POST',
      '/api/v1/tasks',
      { title: 'no agent', prompt: 'hello', agent_profile: 'missing' },
    );
    expect(created.status).toBe(201);
    const sessionId = created.json.session.id;
    // The start fails in the background or before admission answers: either way the session fails.
    await eventually(async () => {
      const listed = await api<{ sessions: { state: string }[] }>(
        'GET',
        `/api/v1/tasks/${created.json.task.id}/sessions`,
      );
      return listed.json.sessions[0]?.state === 'failed';
    }, 15_000);
    const token = recorded.tokens.get(sessionId) ?? '';
    expect(token).not.toBe('');
    expect(await statusOf(server, token)).toBe(401);
    expect(await agentTokenRows(server)).toBe(0);
  });
});
