/**
 * A `clarion serve` process whose replica lock connection ends while it
 * runs (issue 16), on a real PostgreSQL: its lock's backend is terminated.
 * It takes its lock again, so a second start under its ID is still refused.
 * One that could not in time (stopped with SIGSTOP meanwhile) finds its ID
 * taken by a second start when it runs again, and exits as a failed start
 * does, leaving the ID to the process that holds it now.
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { REPLICA_LOCK_CLASS } from '../../src/store/dialect.js';
import { eventually } from '../support/clarification-harness.js';
import { runUntilExit } from '../support/clarion-process.js';
import { replicaProcesses } from '../support/replicas.js';

const ADMIN_TOKEN = 'lock-loss-admin-token-0123456789';

interface Health {
  readonly status: string;
  readonly replica?: { readonly id: string; readonly lock: string };
}

async function health(url: string): Promise<{ status: number; body: Health }> {
  const response = await fetch(`${url}/healthz`);
  return { status: response.status, body: (await response.json()) as Health };
}

/** Terminates the backend holding the replica's lock; its pid. */
async function terminateLock(databaseUrl: string, replicaId: string): Promise<number> {
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ pid: number }>(
      `SELECT l.pid FROM pg_locks l JOIN replicas r ON r.id = $2
        WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
          AND l.classid = $1::bigint::oid AND l.objid = r.lock_key::bigint::oid`,
      [REPLICA_LOCK_CLASS, replicaId],
    );
    const pid = rows[0]?.pid;
    if (pid === undefined) throw new Error(`no lock backend for ${replicaId}`);
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    return pid;
  } finally {
    await admin.end();
  }
}

describe('a replica process that lost its lock connection', () => {
  const processes = replicaProcesses(ADMIN_TOKEN);
  let stoppedPid: number | undefined;

  afterEach(async () => {
    if (stoppedPid !== undefined) process.kill(stoppedPid, 'SIGCONT');
    stoppedPid = undefined;
    await processes.stopAll();
  });

  it('takes its lock again, so a second start under its ID is still refused', async () => {
    const [a] = await processes.start(['lock-a']);
    if (!a) throw new Error('a replica expected');
    const databaseUrl = processes.target().url;
    await terminateLock(databaseUrl, 'lock-a');
    await eventually(async () => {
      const { status, body } = await health(a.url);
      return status === 200 && body.replica?.lock === 'held';
    }, 10_000);

    const second = await runUntilExit({
      DATABASE_URL: databaseUrl,
      CLARION_ADMIN_TOKEN: ADMIN_TOKEN,
      CLARION_REPLICA_ID: 'lock-a',
    });
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(/replica lock-a is already running/);
    expect((await health(a.url)).body).toMatchObject({ status: 'ok', replica: { lock: 'held' } });
  }, 60_000);

  it('exits as a failed start does once a second start took its ID meanwhile', async () => {
    const [a] = await processes.start(['lock-a']);
    const aPid = a?.child.pid;
    if (!a || aPid === undefined) throw new Error('a replica expected');
    // Stopped, it cannot take its lock again before the second start registers the ID.
    process.kill(aPid, 'SIGSTOP');
    stoppedPid = aPid;
    await terminateLock(processes.target().url, 'lock-a');
    const [duplicate] = await processes.start(['lock-a']);
    if (!duplicate) throw new Error('a second replica expected');

    process.kill(aPid, 'SIGCONT');
    stoppedPid = undefined;
    const exited = await Promise.race([
      a.exited,
      new Promise<undefined>((resolve) => setTimeout(resolve, 30_000, undefined)),
    ]);
    expect(exited?.code).toBe(1);
    expect(exited?.stderr).toMatch(/another process registered replica ID lock-a/);
    // The process that holds the ID now serves on, its row and lock untouched.
    expect(await health(duplicate.url)).toMatchObject({
      status: 200,
      body: { status: 'ok', replica: { id: 'lock-a', lock: 'held' } },
    });
  }, 90_000);
});
