/**
 * A message whose agent start was refused while its replica had no lock
 * (issue 16), on a real PostgreSQL with the whole server in this process and
 * its agents played by the test: the lock's backend is terminated and the
 * key held by another connection, so the replica cannot take it again. The
 * message to an idle session is queued, its start waits for the lock
 * (`REPLICA_LOCK_START_WAIT_MS`) and is refused, and the session is idle
 * with the message queued. Once the lock is the replica's again, that queue
 * runs: the message reaches a new agent once, with nothing else sent.
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/observability/index.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { getReplica, getSession, listQueue } from '../../src/store/index.js';
import { REPLICA_LOCK_RETRY_MAX_MS, REPLICA_LOCK_START_WAIT_MS } from '../../src/tunables.js';
import { eventually } from '../support/clarification-harness.js';
import { bearerApi, serverConfig } from '../support/in-process-server.js';
import { freshPostgres } from '../support/replicas.js';
import { takeReplicaLock } from '../support/replica-lock.js';
import type { TestDatabase } from '../support/databases.js';
import { TestHost } from '../support/test-host.js';

const ADMIN_TOKEN = 'lock-loss-queue-admin-token-0123456789';
const REPLICA_ID = 'queue-a';
/** Short, so beats come every second (a third of the lease). */
const LEASE_MS = 3_000;
/** A retry of the lock at its longest backoff, a beat, and slack for a loaded machine. */
const RUN_BOUND_MS = REPLICA_LOCK_RETRY_MAX_MS + LEASE_MS + 5_000;

describe('a message whose agent start was refused while its replica had no lock', () => {
  let database: TestDatabase | undefined;
  let server: RunningServer | undefined;
  let holder: pg.Client | undefined;

  afterEach(async () => {
    await holder?.end().catch(() => undefined);
    holder = undefined;
    await server?.close();
    server = undefined;
    await database?.dispose();
    database = undefined;
  });

  /** What `/healthz` says of the replica's lock. */
  async function lockState(running: RunningServer): Promise<string | undefined> {
    const health = (await (await fetch(`${running.url}/healthz`)).json()) as {
      replica?: { lock?: string };
    };
    return health.replica?.lock;
  }

  it('runs once the lock is taken again, without a second message', async () => {
    const pgDatabase = await freshPostgres();
    database = pgDatabase;
    const host = new TestHost();
    const running = await startServer(
      serverConfig(pgDatabase, ADMIN_TOKEN, { leaseMs: LEASE_MS, replicaId: REPLICA_ID }),
      silentLogger,
      { host },
    );
    server = running;
    const api = bearerApi(running.url, ADMIN_TOKEN);
    const created = await api('POST', '/api/v1/tasks', { title: 'lock-less' });
    expect(created.status).toBe(201);
    const sessionId = (created.json.session as { id: string }).id;
    expect((await getSession(running.store, sessionId))?.state).toBe('idle');

    const key = (await getReplica(running.store, REPLICA_ID))?.lock_key;
    if (key === undefined || key === null) throw new Error('replica not registered');
    holder = await takeReplicaLock(pgDatabase.target.url, key);
    await eventually(async () => (await lockState(running)) === 'retaking');

    const sent = await api('POST', `/api/v1/sessions/${sessionId}/messages`, {
      text: 'sent while lock-less',
      admission_key: 'lock-less-1',
    });
    expect(sent).toMatchObject({ status: 202, json: { outcome: 'queued' } });
    // The start waits for the lock, then is refused: idle again, the message still queued.
    await eventually(
      async () => (await getSession(running.store, sessionId))?.state === 'idle',
      REPLICA_LOCK_START_WAIT_MS + 5_000,
    );
    expect(host.launches).toHaveLength(0);
    expect((await listQueue(running.store, sessionId)).map((item) => item.content)).toEqual([
      'sent while lock-less',
    ]);

    await holder.end();
    holder = undefined;
    await eventually(async () => (await lockState(running)) === 'held', RUN_BOUND_MS);
    await eventually(() => host.prompts.length > 0, RUN_BOUND_MS);
    // Beats after the lock came back run nothing more.
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS));
    expect(host.launches).toHaveLength(1);
    expect(host.prompts.map((prompt) => prompt.text)).toEqual(['sent while lock-less']);
    expect(await listQueue(running.store, sessionId)).toEqual([]);
    expect((await getSession(running.store, sessionId))?.state).toBe('running');
  }, 60_000);
});
