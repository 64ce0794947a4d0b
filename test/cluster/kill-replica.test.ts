/**
 * kill -9 of a replica with questions open (issue 16), two real `clarion
 * serve` processes on one real PostgreSQL. A's demo agents wait: one on a
 * live ask, one after its ask detached. A is killed; an answer to the live
 * ask posted through B at once, and one to the detached ask after B took
 * A's sessions over, each reach a demo agent B starts, exactly once; every
 * answer stays answered.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { clarionApi } from '../agents/supervisor-support.js';
import { eventually } from '../support/clarification-harness.js';
import { replicaProcesses, sessionReads } from '../support/replicas.js';

const ADMIN_TOKEN = 'kill-replica-admin-token-0123456789';
const LEASE_S = 6;

describe('a replica killed with questions open', () => {
  const processes = replicaProcesses(ADMIN_TOKEN);

  afterEach(() => processes.stopAll());

  it('loses no answer: each reaches an agent B starts, once', async () => {
    const [a, b] = await processes.start(['replica-a', 'replica-b'], {
      CLARION_LEASE_S: String(LEASE_S),
    });
    if (!a || !b) throw new Error('two replicas expected');
    const onA = clarionApi(a.url, ADMIN_TOKEN);
    const onB = clarionApi(b.url, ADMIN_TOKEN);

    const startOnA = async (prompt: string) => {
      const created = await onA('POST', '/api/v1/tasks', { title: prompt, prompt });
      expect(created.status).toBe(201);
      return (created.json as { session: { id: string } }).session.id;
    };
    const { pendingOf, agentText } = sessionReads(onB);

    const live = await startOnA('/ask');
    const detached = await startOnA('/ask-detach');
    await eventually(async () => (await pendingOf(live)) !== undefined, 30_000);
    await eventually(async () => (await pendingOf(detached))?.detached === true, 30_000);
    const liveAsk = await pendingOf(live);
    const detachedAsk = await pendingOf(detached);
    if (!liveAsk || !detachedAsk) throw new Error('both asks pending');

    a.child.kill('SIGKILL');
    expect((await a.exited).signal).toBe('SIGKILL');

    // At once, before any takeover: B claims it and delivers it itself, since A is gone.
    const answered = await onB('POST', `/api/v1/clarification/${liveAsk.pending_id}/respond`, {
      answers: [{ question_id: 'q1', selected_options: ['generated'] }],
    });
    expect(answered.status).toBe(200);
    expect(answered.json).toMatchObject({ claimed: true });

    // After the takeover: the detached ask's answer resumes its agent on B.
    const holderOf = (sessionId: string) => processes.leaseHolder(sessionId);
    // B took A's leases over (and gave back those of agents it did not start).
    await eventually(async () => (await holderOf(detached)) !== 'replica-a', 20_000);
    const late = await onB('POST', `/api/v1/clarification/${detachedAsk.pending_id}/respond`, {
      answers: [{ question_id: 'q1', selected_options: ['hand_written'] }],
    });
    expect(late.status).toBe(200);

    await eventually(
      async () => (await agentText(live)).some((t) => t.includes('"Generated"')),
      30_000,
    );
    await eventually(
      async () => (await agentText(detached)).some((t) => t.includes('"Hand-written"')),
      30_000,
    );
    for (const sessionId of [live, detached]) expect(await holderOf(sessionId)).toBe('replica-b');
    // Once each, and both stay answered.
    expect((await agentText(live)).filter((t) => t.includes('"Generated"'))).toHaveLength(1);
    expect((await agentText(detached)).filter((t) => t.includes('"Hand-written"'))).toHaveLength(1);
    for (const ask of [liveAsk, detachedAsk]) {
      const view = await onB('GET', `/api/v1/clarification/${ask.pending_id}`);
      expect(view.json).toMatchObject({ status: 'answered', delivery_pending: false });
    }
  }, 180_000);
});
