/**
 * Agent profiles differ between replicas (a rollout under way, or a
 * mistake): a message posted to a replica without the session's profile,
 * while another replica runs its agent, waits for that holder instead of
 * failing a healthy session. Two real `clarion serve` processes on one real
 * PostgreSQL.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { demoAgentPath } from '../../src/agents/profiles.js';
import { eventually } from '../support/clarification-harness.js';
import { replicaProcesses } from '../support/replicas.js';
import { clarionApi } from '../agents/supervisor-support.js';

const ADMIN_TOKEN = 'profile-elsewhere-admin-token-0123456789';
const PROFILE = 'second-demo';

describe('a session whose profile only its holder knows', () => {
  const processes = replicaProcesses(ADMIN_TOKEN);

  afterEach(() => processes.stopAll());

  it('takes a message through the replica without the profile and runs it on the holder', async () => {
    const [a] = await processes.start(['replica-a'], {
      CLARION_AGENT_PROFILES: JSON.stringify({
        [PROFILE]: { command: process.execPath, args: [demoAgentPath()] },
      }),
    });
    const [b] = await processes.start(['replica-b']);
    if (!a || !b) throw new Error('two replicas expected');
    const onA = clarionApi(a.url, ADMIN_TOKEN);
    const onB = clarionApi(b.url, ADMIN_TOKEN);
    const created = await onA('POST', '/api/v1/tasks', {
      title: 'held by A',
      prompt: 'first',
      agent_profile: PROFILE,
    });
    expect(created.status).toBe(201);
    const session = (created.json as { session: { id: string; task_id: string } }).session;
    const stateOf = async () =>
      (
        (await onB('GET', `/api/v1/tasks/${session.task_id}/sessions`)).json.sessions as {
          id: string;
          state: string;
        }[]
      ).find((s) => s.id === session.id)?.state;
    const agentSaid = async (text: string) =>
      (
        (await onB('GET', `/api/v1/sessions/${session.id}/messages?limit=500`)).json.messages as {
          author: string;
          content: string;
        }[]
      ).some((message) => message.author === 'agent' && message.content.includes(text));
    await eventually(
      async () => (await stateOf()) === 'idle' && (await agentSaid('first')),
      30_000,
    );
    expect(await processes.leaseHolder(session.id)).toBe('replica-a');

    const sent = await onB('POST', `/api/v1/sessions/${session.id}/messages`, {
      text: 'second through B',
      admission_key: 'through-b',
    });
    expect([200, 202]).toContain(sent.status);
    await eventually(() => agentSaid('second through B'), 30_000);
    expect(await stateOf()).not.toBe('failed');
    expect(await processes.leaseHolder(session.id)).toBe('replica-a');
  });
});
