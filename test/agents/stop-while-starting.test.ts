/**
 * A graceful stop that lands while a session's agent start is on its way,
 * the whole server in this process with the built demo agent, on both
 * engines. A pause point holds the start after its lease and credential,
 * just before the host would spawn the agent, until the stop has closed the
 * host: the start is refused then, so once `close()` resolves no agent of
 * the server runs. Its session is idle again with its message queued, its
 * lease given back and its credential revoked, for the next start or another
 * replica (on PostgreSQL the stop's `released` wake sends it there).
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAcpHost } from '../../src/agents/acp-host/index.js';
import { demoAgentBuilt } from '../../src/agents/profiles.js';
import type { AgentHost } from '../../src/agents/runtime.js';
import { silentLogger } from '../../src/observability/logger.js';
import { startServer } from '../../src/server.js';
import { getSession, listQueue, openStore } from '../../src/store/index.js';
import { armPause, type ArmedPause } from '../../src/support/failpoints.js';
import { DRIVERS, freshDatabase, type TestDatabase } from '../support/databases.js';
import { bearerApi, serverConfig } from '../support/in-process-server.js';
import { groupGone } from './supervisor-support.js';

const ADMIN_TOKEN = 'stop-while-starting-admin-token-0123456789';
/** The pause lets the start go by itself after this, should the test never release it. */
const PAUSE_BOUND_MS = 40_000;

/**
 * The real ACP host, telling the test when its close is over and keeping
 * the process ID of every agent a start left it with (a start that spawned
 * nothing leaves none).
 */
function watchedHost() {
  const inner = createAcpHost({ logger: silentLogger });
  const pids: number[] = [];
  const starts: string[] = [];
  let markClosed: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => {
    markClosed = resolve;
  });
  const host: AgentHost = {
    ...inner,
    async start(launch) {
      starts.push(launch.sessionId);
      try {
        await inner.start(launch);
      } finally {
        const pid = inner.pid(launch.sessionId);
        if (pid !== undefined) pids.push(pid);
      }
    },
    async close() {
      await inner.close();
      markClosed();
    },
  };
  return { host, pids, starts, closed };
}

beforeAll(() => {
  if (!demoAgentBuilt()) throw new Error('the demo agent is missing: run npm run build first');
});

describe.each(DRIVERS)('a stop while an agent start is on its way, on %s', (driver) => {
  let database: TestDatabase | undefined;
  let pause: ArmedPause | undefined;
  let leftPids: number[] = [];

  afterEach(async () => {
    pause?.release();
    pause = undefined;
    // What a failing run left running goes, so the next file starts clean.
    for (const pid of leftPids.filter((pid) => !groupGone(pid))) process.kill(-pid, 'SIGKILL');
    leftPids = [];
    await database?.dispose();
    database = undefined;
  });

  it('refuses the start once the stop closed the host, leaving no agent running and the session for the next start', async () => {
    database = await freshDatabase(driver, { migrated: true });
    const watched = watchedHost();
    leftPids = watched.pids;
    const server = await startServer(serverConfig(database, ADMIN_TOKEN), silentLogger, {
      host: watched.host,
    });
    const api = bearerApi(server.url, ADMIN_TOKEN);

    // The start holds its lease and credential and waits just before the host would spawn.
    pause = armPause('agent_start.before_host_start', PAUSE_BOUND_MS);
    const created = api('POST', '/api/v1/tasks', { title: 'late start', prompt: 'hello' });
    await pause.reached;
    const closing = server.close();
    await watched.closed;
    pause.release();
    await closing;

    expect(watched.pids.filter((pid) => !groupGone(pid))).toEqual([]);
    // Refused before the host: it never saw the start.
    expect(watched.starts).toEqual([]);
    const reply = await created;
    expect(reply.status).toBe(201);
    const sessionId = (reply.json.session as { id: string }).id;

    const store = await openStore(database.target);
    try {
      expect(await getSession(store, sessionId)).toMatchObject({ state: 'idle' });
      expect((await listQueue(store, sessionId)).map((item) => item.content)).toEqual(['hello']);
      const lease = await store.db
        .selectFrom('session_leases')
        .select('replica_id')
        .where('session_id', '=', sessionId)
        .executeTakeFirst();
      expect(lease).toBeUndefined();
      const tokens = await store.db
        .selectFrom('api_tokens')
        .select('id')
        .where('task_session_id', '=', sessionId)
        .execute();
      expect(tokens).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
