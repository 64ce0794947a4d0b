/**
 * Two real `clarion serve` processes on one real PostgreSQL (issue 16, part
 * A). Starting B leaves A's running session and A's agent token alone (before
 * replicas, every start reset every session and revoked every agent token);
 * `/healthz` names each replica and its leases; a message through B to a
 * session whose agent runs on A is queued and B starts no agent; after a
 * SIGKILL of A, B takes A's sessions within the lease, recovers them once, and
 * its own demo agent drives the messages that were waiting.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { DatabaseTarget } from '../../src/store/index.js';
import { eventually } from '../support/clarification-harness.js';
import { runUntilExit, startServing, type Serving } from '../support/clarion-process.js';
import { freshDatabase, type TestDatabase } from '../support/databases.js';
import { clarionApi } from '../agents/supervisor-support.js';
import { leaseHolder, readStore } from '../support/replicas.js';

const ADMIN_TOKEN = 'two-replicas-admin-token-0123456789';
const LEASE_S = 6;

const agentTokens = (target: DatabaseTarget) =>
  readStore(target, async (store) =>
    (
      await store.db.selectFrom('api_tokens').select('id').where('kind', '=', 'agent').execute()
    ).map((row) => row.id),
  );

async function health(url: string): Promise<{ replica: { id: string; leases: number } }> {
  return (await (await fetch(`${url}/healthz`)).json()) as {
    replica: { id: string; leases: number };
  };
}

describe('two replicas on one PostgreSQL', () => {
  let database: TestDatabase | undefined;
  const servers: Serving[] = [];

  afterEach(async () => {
    for (const server of servers.splice(0)) {
      if (server.child.exitCode === null && server.child.signalCode === null) await server.stop();
    }
    await database?.dispose();
    database = undefined;
  });

  it('a second replica leaves the first one’s session running; a killed one’s session moves to the other', async () => {
    database = await freshDatabase('postgres');
    const { target } = database;
    if (target.driver !== 'postgres') throw new Error('postgres only');
    const env = (id: string) => ({
      DATABASE_URL: target.url,
      CLARION_ADMIN_TOKEN: ADMIN_TOKEN,
      CLARION_REPLICA_ID: id,
      CLARION_LEASE_S: String(LEASE_S),
    });
    const a = await startServing(env('replica-a'));
    servers.push(a);
    const onA = clarionApi(a.url, ADMIN_TOKEN);
    const created = await onA('POST', '/api/v1/tasks', {
      title: 'held by A',
      prompt: '/permission',
    });
    expect(created.status).toBe(201);
    const session = (created.json as { session: { id: string; task_id: string } }).session;
    const stateOn = async (api: typeof onA) =>
      (
        (await api('GET', `/api/v1/tasks/${session.task_id}/sessions`)).json.sessions as {
          id: string;
          state: string;
        }[]
      ).find((s) => s.id === session.id)?.state;
    // The agent runs its turn, waiting for a consent: a message now is queued behind it.
    await eventually(async () => (await stateOn(onA)) === 'running', 30_000);
    const queued = await onA('POST', `/api/v1/sessions/${session.id}/messages`, {
      text: 'driven by whoever holds the lease',
      admission_key: 'queued-on-a',
    });
    expect(queued).toMatchObject({ status: 202, json: { outcome: 'queued' } });
    const tokensOfA = await agentTokens(target);
    expect(tokensOfA).toHaveLength(1);
    expect(await leaseHolder(target, session.id)).toBe('replica-a');

    // B's start-up recovery acts only on sessions no live replica holds.
    const b = await startServing(env('replica-b'));
    servers.push(b);
    const onB = clarionApi(b.url, ADMIN_TOKEN);
    expect(await agentTokens(target)).toEqual(tokensOfA);
    expect(await stateOn(onA)).toBe('running');
    expect(await leaseHolder(target, session.id)).toBe('replica-a');
    expect(await health(a.url)).toMatchObject({ replica: { id: 'replica-a', leases: 1 } });
    expect(await health(b.url)).toMatchObject({ replica: { id: 'replica-b', leases: 0 } });

    // A replica's clean stop revokes only its own agents' tokens and gives back only its leases.
    const c = await startServing(env('replica-c'));
    expect((await c.stop()).code).toBe(0);
    expect(await agentTokens(target)).toEqual(tokensOfA);
    expect(await leaseHolder(target, session.id)).toBe('replica-a');

    // An idle session whose agent runs on A: a message through B waits for A, B starts nothing.
    const idle = (await onA('POST', '/api/v1/tasks', { title: 'idle on A', prompt: 'hello' }))
      .json as { session: { id: string; task_id: string } };
    const idleTranscript = async () =>
      (
        (await onA('GET', `/api/v1/sessions/${idle.session.id}/messages?limit=500`)).json
          .messages as { content: string }[]
      ).map((message) => message.content);
    await eventually(async () => (await idleTranscript()).includes('You said: hello'), 30_000);
    const idleState = async () =>
      (
        (await onB('GET', `/api/v1/tasks/${idle.session.task_id}/sessions`)).json.sessions as {
          state: string;
        }[]
      )[0]?.state;
    await eventually(async () => (await idleState()) === 'idle', 30_000);
    const tokensBefore = await agentTokens(target);
    expect(tokensBefore).toHaveLength(2);
    const throughB = await onB('POST', `/api/v1/sessions/${idle.session.id}/messages`, {
      text: 'sent through B',
      admission_key: 'through-b',
    });
    // `sent` when A's agent took it within admission's start wait, else `queued`; never started on B.
    expect([
      { status: 200, outcome: 'sent' },
      { status: 202, outcome: 'queued' },
    ]).toContainEqual({ status: throughB.status, outcome: throughB.json.outcome });
    expect(await leaseHolder(target, idle.session.id)).toBe('replica-a');
    expect(await agentTokens(target)).toEqual(tokensBefore);
    // B woke A, whose agent runs it now (well before any poll would matter), once.
    await eventually(
      async () => (await idleTranscript()).includes('You said: sent through B'),
      10_000,
    );
    await eventually(async () => (await idleState()) === 'idle', 10_000);
    expect((await idleTranscript()).filter((c) => c === 'sent through B')).toHaveLength(1);
    expect(await health(a.url)).toMatchObject({ replica: { leases: 2 } });
    expect(await health(b.url)).toMatchObject({ replica: { leases: 0 } });

    a.child.kill('SIGKILL');
    expect((await a.exited).signal).toBe('SIGKILL');
    const killedAt = Date.now();
    // Within the lease: B holds the session, revoked A's agent token, and its own agent took the queue.
    await eventually(async () => (await leaseHolder(target, session.id)) === 'replica-b', 20_000);
    expect(Date.now() - killedAt).toBeLessThan(LEASE_S * 1000 + 2_000);
    const transcript = async () =>
      (
        (await onB('GET', `/api/v1/sessions/${session.id}/messages?limit=500`)).json.messages as {
          content: string;
        }[]
      ).map((message) => message.content);
    await eventually(
      async () =>
        (await transcript()).some((c) => c.includes('You said: driven by whoever holds the lease')),
      30_000,
    );
    expect(await agentTokens(target)).not.toContain(tokensOfA[0]);
    // The message sent through B while A held the idle session ran on A, and is not run again.
    const idleOnB = async () =>
      (
        (await onB('GET', `/api/v1/sessions/${idle.session.id}/messages?limit=500`)).json
          .messages as { content: string }[]
      ).map((message) => message.content);
    expect((await idleOnB()).filter((c) => c === 'You said: sent through B')).toHaveLength(1);
    expect((await onB('GET', `/api/v1/sessions/${session.id}/queue`)).json).toEqual({ items: [] });
    expect(
      (await transcript()).filter((c) => c === 'driven by whoever holds the lease'),
    ).toHaveLength(1);
    // The idle session had nothing queued: B recovered it and gave its lease back.
    expect(await health(b.url)).toMatchObject({ replica: { id: 'replica-b', leases: 1 } });

    const exited = await b.stop();
    expect(exited.code).toBe(0);
    const recoveries = exited.stdout
      .split('\n')
      .filter((line) => line.includes('recovered the sessions of a replica that is gone'));
    expect(recoveries).toHaveLength(1);
    // A clean stop gives back its leases.
    expect(await leaseHolder(target, session.id)).toBeUndefined();
    expect(await leaseHolder(target, idle.session.id)).toBeUndefined();
  }, 180_000);

  it('refuses a second server under a live replica’s ID in one line naming it', async () => {
    database = await freshDatabase('postgres');
    const { target } = database;
    if (target.driver !== 'postgres') throw new Error('postgres only');
    const env = { DATABASE_URL: target.url, CLARION_REPLICA_ID: 'only-one' };
    const first = await startServing(env);
    servers.push(first);
    const second = await runUntilExit(env);
    expect(second.code).not.toBe(0);
    expect(second.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^clarion: replica only-one is already running on this database/),
    ]);
    expect((await fetch(`${first.url}/healthz`)).status).toBe(200);
  }, 60_000);
});
