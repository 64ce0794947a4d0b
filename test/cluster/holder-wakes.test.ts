/**
 * A cancel or a delete through a replica that does not run the session's
 * agent (issue 16), with two real `clarion serve` processes on one real
 * PostgreSQL: the holder cancels the turn or stops the agent, and gives its
 * lease back; before the holder wakes, neither reached the agent.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../support/clarification-harness.js';
import type { Serving } from '../support/clarion-process.js';
import { replicaProcesses } from '../support/replicas.js';
import { clarionApi } from '../agents/supervisor-support.js';
import { BOOTSTRAP_ADMIN_NAME } from '../../src/auth/bootstrap.js';

const ADMIN_TOKEN = 'holder-wakes-admin-token-0123456789';

async function leasesOf(server: Serving): Promise<number> {
  const health = (await (await fetch(`${server.url}/healthz`)).json()) as {
    replica: { leases: number };
  };
  return health.replica.leases;
}

describe('asking the holder from another replica', () => {
  const processes = replicaProcesses(ADMIN_TOKEN);

  afterEach(() => processes.stopAll());

  it('a turn cancelled through B ends on A; a session deleted through B stops its agent on A', async () => {
    const [a, b] = await processes.start(['replica-a', 'replica-b']);
    if (!a || !b) throw new Error('two replicas expected');
    const onA = clarionApi(a.url, ADMIN_TOKEN);
    const onB = clarionApi(b.url, ADMIN_TOKEN);
    // The demo agent's turn waits on a consent: it runs until someone cancels it.
    const created = await onA('POST', '/api/v1/tasks', {
      title: 'held by A',
      prompt: '/permission',
    });
    expect(created.status).toBe(201);
    const session = (created.json as { session: { id: string; task_id: string } }).session;
    const stateOn = async () =>
      (
        (await onB('GET', `/api/v1/tasks/${session.task_id}/sessions`)).json.sessions as {
          id: string;
          state: string;
        }[]
      ).find((s) => s.id === session.id)?.state;
    await eventually(async () => (await stateOn()) === 'running', 30_000);
    expect(await leasesOf(a)).toBe(1);

    expect((await onB('POST', `/api/v1/sessions/${session.id}/cancel`)).status).toBe(202);
    await eventually(async () => (await stateOn()) === 'idle', 15_000);
    const transcript = (
      (await onB('GET', `/api/v1/sessions/${session.id}/messages?limit=500`)).json.messages as {
        content: string;
      }[]
    ).map((message) => message.content);
    // Who cancelled, as a cancel on A itself would say.
    expect(transcript).toContain(`Cancelled by ${BOOTSTRAP_ADMIN_NAME}`);
    // The agent still runs on A, idle: a cancel ends the turn, not the agent.
    expect(await leasesOf(a)).toBe(1);

    expect((await onB('DELETE', `/api/v1/sessions/${session.id}`)).status).toBe(200);
    await eventually(async () => (await leasesOf(a)) === 0, 15_000);
    expect(await leasesOf(b)).toBe(0);
  });
});
