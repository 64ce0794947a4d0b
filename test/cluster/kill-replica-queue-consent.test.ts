/**
 * kill -9 of a replica with a queued message and a pending consent (issue
 * 16), two real `clarion serve` processes on one real PostgreSQL; the sibling
 * of kill-replica.test.ts (live waits, detached answers). On A one session's
 * agent waits on an ask with a person's message queued behind it, another's
 * agent waits for a consent. A is killed; after B takes the sessions over the
 * queued message runs on an agent B starts, exactly once, and the consent is
 * gone as a restart of one server leaves it: not listed, 404 to an answer,
 * its turn ended, the session idle, and B's agent takes the next message.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { clarionApi } from '../agents/supervisor-support.js';
import { eventually } from '../support/clarification-harness.js';
import { replicaProcesses } from '../support/replicas.js';

const ADMIN_TOKEN = 'kill-replica-queue-consent-token-0123456789';
const LEASE_S = 6;
/** Room over the lease for a heartbeat's phase and a 2-core CI machine. */
const TAKEOVER_MARGIN_MS = 3_000;

interface RequestView {
  id: string;
  session_id: string;
  status: string;
}

describe('a replica killed with a message queued and a consent pending', () => {
  const processes = replicaProcesses(ADMIN_TOKEN);

  afterEach(() => processes.stopAll());

  it('runs the queued message on B once and ends the consent as a restart would', async () => {
    const [a, b] = await processes.start(['replica-a', 'replica-b'], {
      CLARION_LEASE_S: String(LEASE_S),
    });
    if (!a || !b) throw new Error('two replicas expected');
    const onA = clarionApi(a.url, ADMIN_TOKEN);
    const onB = clarionApi(b.url, ADMIN_TOKEN);

    const taskOf = new Map<string, string>();
    const startOnA = async (prompt: string) => {
      const created = await onA('POST', '/api/v1/tasks', { title: prompt, prompt });
      expect(created.status).toBe(201);
      const { task, session } = created.json as { task: { id: string }; session: { id: string } };
      taskOf.set(session.id, task.id);
      return session.id;
    };
    const transcript = async (sessionId: string) =>
      (
        (await onB('GET', `/api/v1/sessions/${sessionId}/messages?limit=500`)).json.messages as {
          author: string;
          content: string;
        }[]
      ).filter((message) => message.author === 'agent');
    const agentSaid = async (sessionId: string, words: string) =>
      (await transcript(sessionId)).filter((message) => message.content.includes(words)).length;
    const consentsOn = async (api: typeof onA, sessionId: string) =>
      ((await api('GET', '/api/v1/user-inputs')).json.requests as RequestView[]).filter(
        (request) => request.session_id === sessionId,
      );
    const stateOf = async (sessionId: string) =>
      (
        (await onB('GET', `/api/v1/tasks/${taskOf.get(sessionId) ?? ''}/sessions`)).json as {
          sessions: { id: string; state: string }[];
        }
      ).sessions.find((session) => session.id === sessionId)?.state;

    // One session busy on an ask, with a person's message queued behind it.
    const queued = await startOnA('/ask');
    await eventually(async () => (await stateOf(queued)) === 'waiting_for_input', 30_000);
    const waiting = await onA('POST', `/api/v1/sessions/${queued}/messages`, {
      text: 'queued behind the ask',
      admission_key: 'queued-behind-the-ask',
    });
    expect(waiting.status).toBe(202);
    // Another whose agent waits for a consent.
    const consenting = await startOnA('/permission');
    await eventually(async () => (await consentsOn(onB, consenting)).length === 1, 30_000);
    const [consent] = await consentsOn(onB, consenting);
    if (!consent) throw new Error('the consent is pending');

    const holderOf = (sessionId: string) => processes.leaseHolder(sessionId);
    for (const sessionId of [queued, consenting]) {
      expect(await holderOf(sessionId)).toBe('replica-a');
    }

    const killedAt = Date.now();
    a.child.kill('SIGKILL');
    expect((await a.exited).signal).toBe('SIGKILL');
    // Within the lease B took both sessions over (and may have given back a lease it does not need).
    await eventually(async () => {
      const holders = await Promise.all([holderOf(queued), holderOf(consenting)]);
      return !holders.includes('replica-a');
    }, 20_000);
    expect(Date.now() - killedAt).toBeLessThan(LEASE_S * 1000 + TAKEOVER_MARGIN_MS);

    // B takes both sessions over: the queued message runs on an agent B starts.
    await eventually(async () => (await agentSaid(queued, 'queued behind the ask')) > 0, 60_000);
    // The consent is gone as after a restart: not listed, and an answer finds nothing.
    await eventually(async () => (await stateOf(consenting)) === 'idle', 30_000);
    expect(await consentsOn(onB, consenting)).toEqual([]);
    expect(
      await onB('POST', `/api/v1/user-inputs/${consent.id}/respond`, { option_id: 'allow-once' }),
    ).toMatchObject({ status: 404 });
    // B's agent continues the session with the next message.
    const next = await onB('POST', `/api/v1/sessions/${consenting}/messages`, {
      text: 'after the takeover',
      admission_key: 'after-the-takeover',
    });
    expect([200, 202]).toContain(next.status);
    await eventually(async () => (await agentSaid(consenting, 'after the takeover')) > 0, 30_000);

    // Nothing ran twice: the queued message was prompted once, and the queue is empty.
    await new Promise((resolve) => setTimeout(resolve, 2 * LEASE_S * 1000));
    expect(await agentSaid(queued, 'queued behind the ask')).toBe(1);
    expect(await agentSaid(consenting, 'after the takeover')).toBe(1);
    const queue = (await onB('GET', `/api/v1/sessions/${queued}/queue`)).json as {
      items: unknown[];
    };
    expect(queue.items).toEqual([]);
  }, 180_000);
});
