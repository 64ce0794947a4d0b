/**
 * A message queued in a session of a replica that stops cleanly (issue 16),
 * two whole servers in this process on one real PostgreSQL, their agents
 * played by the test. A stopping replica starts no turn, so the message
 * queued behind its running turn is still queued once it gave its leases
 * back. The other replica runs it at once, with nothing else sent: told by
 * the stop's `released` wake (its own poll far off), or, when that
 * notification is lost (its listener down and unable to reconnect), by its
 * poll. A message sent through another replica while the holder drains
 * runs the same way. Two replicas that hear it run it once. When the last replica stops,
 * the next start runs what it left.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/observability/index.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { getSession, listQueue, WAKE_LISTENER_APPLICATION } from '../../src/store/index.js';
import { eventually } from '../support/clarification-harness.js';
import { bearerApi, serverConfig } from '../support/in-process-server.js';
import { withPgAdmin } from '../support/databases.js';
import { freshPostgres, leaseHolder } from '../support/replicas.js';
import { TestHost } from '../support/test-host.js';

const ADMIN_TOKEN = 'released-queues-admin-token-0123456789';
/** Far below any lease or poll of the suite: a run within it came from the stop's wake. */
const WOKEN_WITHIN_MS = 10_000;
/** How often the replica whose notification is lost polls. */
const SHORT_POLL_MS = 300;

interface Replica {
  readonly server: RunningServer;
  readonly host: TestHost;
  readonly api: ReturnType<typeof bearerApi>;
  closed: boolean;
}

describe('a message queued in a session of a replica that stops cleanly', () => {
  let database: Awaited<ReturnType<typeof freshPostgres>> | undefined;
  const replicas: Replica[] = [];
  let reopen: (() => Promise<unknown>) | undefined;

  afterEach(async () => {
    await reopen?.();
    reopen = undefined;
    for (const replica of replicas.splice(0)) {
      if (!replica.closed) await replica.server.close().catch(() => undefined);
    }
    await database?.dispose();
    database = undefined;
  });

  async function start(
    replicaId: string,
    wakePollIntervalMs: number,
    drainDelayMs?: number,
  ): Promise<Replica> {
    database ??= await freshPostgres();
    const host = new TestHost();
    const server = await startServer(
      serverConfig(database, ADMIN_TOKEN, {
        replicaId,
        ...(drainDelayMs === undefined ? {} : { drainDelayMs }),
      }),
      silentLogger,
      { host, wakePollIntervalMs },
    );
    const replica = { server, host, api: bearerApi(server.url, ADMIN_TOKEN), closed: false };
    replicas.push(replica);
    return replica;
  }

  async function stop(replica: Replica): Promise<void> {
    replica.closed = true;
    await replica.server.close();
  }

  /** A session whose agent runs on `replica` in a turn that does not end, and a message queued behind it. */
  async function queuedBehindTurn(replica: Replica, text: string, sessionId?: string) {
    let id = sessionId;
    if (id === undefined) {
      const created = await replica.api('POST', '/api/v1/tasks', {
        title: 'rolling',
        prompt: 'go',
      });
      expect(created.status).toBe(201);
      id = (created.json.session as { id: string }).id;
    }
    const session = id;
    await eventually(
      async () => (await getSession(replica.server.store, session))?.state === 'running',
      WOKEN_WITHIN_MS,
    );
    const queued = await replica.api('POST', `/api/v1/sessions/${session}/messages`, {
      text,
      admission_key: `key-${text}`,
    });
    expect(queued).toMatchObject({ status: 202, json: { outcome: 'queued' } });
    return session;
  }

  const prompted = (replica: Replica) => replica.host.prompts.map((prompt) => prompt.text);

  it('runs on another live replica at once when told; after the last stops, at the next start', async () => {
    const a = await start('released-a', 60_000);
    const b = await start('released-b', 60_000);
    const sessionId = await queuedBehindTurn(a, 'queued on a');
    expect(prompted(a)).toEqual(['go']);

    await stop(a);
    await eventually(() => prompted(b).includes('queued on a'), WOKEN_WITHIN_MS);
    expect(b.host.launches).toHaveLength(1);
    expect(prompted(b)).toEqual(['queued on a']);
    expect(await listQueue(b.server.store, sessionId)).toEqual([]);
    expect((await getSession(b.server.store, sessionId))?.state).toBe('running');

    // B is the last: nobody hears its stop, and the next start runs what it left.
    await queuedBehindTurn(b, 'queued on b', sessionId);
    await stop(b);
    const c = await start('released-c', 60_000);
    await eventually(() => prompted(c).includes('queued on b'), WOKEN_WITHIN_MS);
    expect(prompted(c)).toEqual(['queued on b']);
    expect(await listQueue(c.server.store, sessionId)).toEqual([]);
  }, 90_000);

  it('runs a message sent through another replica while the holder drains', async () => {
    const a = await start('drain-a', 60_000, 3_000);
    const b = await start('drain-b', 60_000);
    const created = await a.api('POST', '/api/v1/tasks', { title: 'draining', prompt: 'go' });
    expect(created.status).toBe(201);
    const sessionId = (created.json.session as { id: string }).id;
    await eventually(() => prompted(a).includes('go'), WOKEN_WITHIN_MS);
    // Its turn over, A's agent waits for the next message: the session is idle, its lease A's.
    a.host.endTurn(sessionId);
    await eventually(
      async () => (await getSession(b.server.store, sessionId))?.state === 'idle',
      WOKEN_WITHIN_MS,
    );

    a.closed = true;
    const stopped = a.server.close();
    await eventually(async () => (await fetch(`${a.server.url}/healthz`)).status === 503);
    // B cannot start the agent A holds, and A, draining, starts no turn: the message waits.
    const sent = await b.api('POST', `/api/v1/sessions/${sessionId}/messages`, {
      text: 'sent while a drains',
      admission_key: 'while-a-drains',
    });
    expect(sent).toMatchObject({ status: 202, json: { outcome: 'queued' } });
    await stopped;
    await eventually(() => prompted(b).includes('sent while a drains'), WOKEN_WITHIN_MS);
    expect(prompted(a)).toEqual(['go']);
    expect(prompted(b)).toEqual(['sent while a drains']);
  }, 90_000);

  it('runs once when two live replicas hear the stop', async () => {
    const a = await start('race-a', 60_000);
    const b = await start('race-b', 60_000);
    const c = await start('race-c', 60_000);
    const sessionId = await queuedBehindTurn(a, 'queued on a');

    await stop(a);
    const heard = () => [...prompted(b), ...prompted(c)];
    await eventually(() => heard().includes('queued on a'), WOKEN_WITHIN_MS);
    // Both passes have long ended by now: a second run would have started a second agent.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(heard()).toEqual(['queued on a']);
    expect(b.host.launches.length + c.host.launches.length).toBe(1);
    expect(await listQueue(b.server.store, sessionId)).toEqual([]);
  }, 90_000);

  it('runs at the poll when the notification is lost', async () => {
    const a = await start('lost-a', 60_000);
    const b = await start('lost-b', SHORT_POLL_MS);
    const sessionId = await queuedBehindTurn(a, 'queued on a');
    await eventually(() => b.server.wakes.listenerState() === 'listening');
    const { target } = database ?? {};
    if (!target) throw new Error('no database');

    // The listeners die and cannot come back: the stop's notification reaches nobody.
    const name = new URL(target.url).pathname.slice(1);
    await withPgAdmin(async (client) => {
      await client.query(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS false`);
      await client.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE application_name = $1 AND datname = $2`,
        [WAKE_LISTENER_APPLICATION, name],
      );
    });
    reopen = () =>
      withPgAdmin((client) => client.query(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS true`));
    await eventually(() => b.server.wakes.listenerState() === 'reconnecting');

    await stop(a);
    await eventually(() => prompted(b).includes('queued on a'), WOKEN_WITHIN_MS);
    expect(b.server.wakes.listenerState()).toBe('reconnecting');
    await reopen();
    reopen = undefined;
    expect(b.host.launches).toHaveLength(1);
    expect(prompted(b)).toEqual(['queued on a']);
    expect(await leaseHolder(target, sessionId)).toBe('lost-b');
  }, 90_000);
});
