/**
 * A replica that hangs past its lease is fenced when it runs again (issue
 * 16), with two real `clarion serve` processes on one real PostgreSQL. A's
 * demo agent waits on a live ask; A is stopped (SIGSTOP), B takes the
 * session over and an answer through B reaches a demo agent B starts. When
 * A runs again (SIGCONT) nothing tells it, yet within a bound its old agent's
 * process group is gone and it holds no lease; a message and an answer sent
 * through A afterwards reach B's agent, and every answer reached an agent once.
 */
import { describe, it, type TestContext } from 'vitest';
import { childrenOf, clarionApi, groupGone } from '../agents/supervisor-support.js';
import { eventually } from '../support/clarification-harness.js';
import { askingSession, replicaProcessesOfTest, sessionReads } from '../support/replicas.js';

const ADMIN_TOKEN = 'hung-replica-admin-token-0123456789';
const LEASE_S = 6;

/**
 * Two replicas of this test's own, and SIGSTOP and SIGCONT for them. A stopped
 * process cannot shut down: one still stopped when the test ends runs again first.
 */
function hangingReplicas(context: TestContext) {
  const stopped = new Set<number>();
  const processes = replicaProcessesOfTest(ADMIN_TOKEN, context, () => {
    for (const pid of stopped) process.kill(pid, 'SIGCONT');
    stopped.clear();
  });
  return {
    processes,
    hang: (pid: number) => {
      process.kill(pid, 'SIGSTOP');
      stopped.add(pid);
    },
    resume: (pid: number) => {
      process.kill(pid, 'SIGCONT');
      stopped.delete(pid);
    },
  };
}

// At once, each on its own database: most of each test waits for a lease to run out.
describe.concurrent('a replica that hung past its lease', () => {
  it('is fenced when it runs again: its agent stops and the session stays with B', async (context) => {
    const { expect } = context;
    const { processes, hang, resume } = hangingReplicas(context);
    const [a, b] = await processes.start(['replica-a', 'replica-b'], {
      CLARION_LEASE_S: String(LEASE_S),
    });
    if (!a?.child.pid || !b?.child.pid) throw new Error('two replicas expected');
    const aPid = a.child.pid;
    const onA = clarionApi(a.url, ADMIN_TOKEN);
    const onB = clarionApi(b.url, ADMIN_TOKEN);
    const reads = sessionReads(onB);
    const { pendingOf, agentText } = reads;
    const leasesOf = async (api: typeof onA) =>
      ((await api('GET', '/healthz')).json as { replica: { leases: number } }).replica.leases;

    const {
      sessionId,
      ask: firstAsk,
      agent: agentOnA,
    } = await askingSession(onA, reads, aPid, 'hung');
    const asks = [firstAsk];

    hang(aPid);

    const holderOf = () => processes.leaseHolder(sessionId);
    // Within the lease (and a beat of B's): B holds the session. With no agent to start for
    // it yet, B may give the lease back at once, until the answer below starts one.
    await eventually(async () => (await holderOf()) === 'replica-b', 3 * LEASE_S * 1000);

    const answered = await onB('POST', `/api/v1/clarification/${firstAsk.pending_id}/respond`, {
      answers: [{ question_id: 'q1', selected_options: ['generated'] }],
    });
    expect(answered.status).toBe(200);
    expect(answered.json).toMatchObject({ claimed: true });
    await eventually(
      async () => (await agentText(sessionId)).some((t) => t.includes('"Generated"')),
      30_000,
    );
    expect(childrenOf(b.child.pid).length).toBe(1);
    // B runs the session's agent now, and holds its lease, as its /healthz says.
    expect(await leasesOf(onB)).toBeGreaterThanOrEqual(1);

    // A runs again and learns nothing from anyone: its own lease check fences the session.
    resume(aPid);
    await eventually(() => Promise.resolve(groupGone(agentOnA)), 2 * LEASE_S * 1000);
    expect(childrenOf(aPid)).toEqual([]);
    expect(await leasesOf(onA)).toBe(0);
    expect(await holderOf()).toBe('replica-b');
    // By its own lease check: the renew that found the lease gone, or, had no renew got
    // through in time, the validity check of its beat.
    await eventually(() =>
      Promise.resolve(
        a.output().stdout.includes('its agent, waits and requests here end without writing'),
      ),
    );

    // A message through A runs on B's agent, which asks again; an answer through A reaches it.
    const sent = await onA('POST', `/api/v1/sessions/${sessionId}/messages`, {
      text: '/ask after the pause',
      admission_key: 'after-the-pause',
    });
    expect([200, 202]).toContain(sent.status);
    const nextAsk = async () => {
      const pending = await pendingOf(sessionId);
      return pending && pending.pending_id !== firstAsk.pending_id ? pending : undefined;
    };
    await eventually(async () => (await nextAsk()) !== undefined, 30_000);
    const secondAsk = await nextAsk();
    if (!secondAsk) throw new Error('the second ask is pending');
    asks.push(secondAsk);
    const late = await onA('POST', `/api/v1/clarification/${secondAsk.pending_id}/respond`, {
      answers: [{ question_id: 'q1', selected_options: ['hand_written'] }],
    });
    expect(late.status).toBe(200);
    expect(late.json).toMatchObject({ claimed: true });
    await eventually(
      async () => (await agentText(sessionId)).some((t) => t.includes('"Hand-written"')),
      30_000,
    );
    expect(await holderOf()).toBe('replica-b');
    expect(childrenOf(aPid)).toEqual([]);
    // Each answer reached an agent once; A's old agent added nothing.
    const text = await agentText(sessionId);
    expect(text.filter((t) => t.includes('"Generated"'))).toHaveLength(1);
    expect(text.filter((t) => t.includes('"Hand-written"'))).toHaveLength(1);
    expect(asks).toHaveLength(2);
    for (const ask of asks) {
      const view = await onA('GET', `/api/v1/clarification/${ask.pending_id}`);
      expect(view.json).toMatchObject({ status: 'answered', delivery_pending: false });
    }
  }, 180_000);

  it('fences before a hand-off: an answer sent to A while it was stopped never reaches its old agent', async (context) => {
    const { expect } = context;
    const { processes, hang, resume } = hangingReplicas(context);
    const [a, b] = await processes.start(['replica-a', 'replica-b'], {
      CLARION_LEASE_S: String(LEASE_S),
    });
    if (!a?.child.pid || !b?.child.pid) throw new Error('two replicas expected');
    const aPid = a.child.pid;
    const bPid = b.child.pid;
    const onA = clarionApi(a.url, ADMIN_TOKEN);
    const onB = clarionApi(b.url, ADMIN_TOKEN);
    const reads = sessionReads(onB);
    const { sessionId, ask, agent: agentOnA } = await askingSession(onA, reads, aPid, 'hung');

    hang(aPid);
    // B took the session over (the lease is then B's, or free again once B gave it back).
    await eventually(
      async () => (await processes.leaseHolder(sessionId)) !== 'replica-a',
      3 * LEASE_S * 1000,
    );
    // Sent while A is stopped: A reads it when it runs again, before or as its heartbeat renews.
    const answered = onA('POST', `/api/v1/clarification/${ask.pending_id}/respond`, {
      answers: [{ question_id: 'q1', selected_options: ['generated'] }],
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    resume(aPid);
    expect((await answered).status).toBe(200);

    const agentText = () => reads.agentText(sessionId);
    await eventually(
      async () => (await agentText()).some((t) => t.includes('"Generated"')),
      30_000,
    );
    await eventually(() => Promise.resolve(groupGone(agentOnA)), 2 * LEASE_S * 1000);
    // One agent runs the session now, a new one, on whichever replica resumed it.
    const agents = [...childrenOf(aPid), ...childrenOf(bPid)];
    expect(agents).toHaveLength(1);
    expect(agents).not.toContain(agentOnA);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect((await agentText()).filter((t) => t.includes('"Generated"'))).toHaveLength(1);
    const view = await onB('GET', `/api/v1/clarification/${ask.pending_id}`);
    expect(view.json).toMatchObject({ status: 'answered', delivery_pending: false });
  }, 180_000);

  it('an answer through B while A hangs waits for the takeover, then reaches an agent on B', async (context) => {
    const { expect } = context;
    const { processes, hang } = hangingReplicas(context);
    const [a, b] = await processes.start(['replica-a', 'replica-b'], {
      CLARION_LEASE_S: String(LEASE_S),
    });
    if (!a?.child.pid || !b?.child.pid) throw new Error('two replicas expected');
    const onA = clarionApi(a.url, ADMIN_TOKEN);
    const onB = clarionApi(b.url, ADMIN_TOKEN);
    const created = await onA('POST', '/api/v1/tasks', { title: 'hung', prompt: '/ask' });
    expect(created.status).toBe(201);
    const sessionId = (created.json as { session: { id: string } }).session.id;
    let pendingId = '';
    await eventually(async () => {
      const list = (await onB('GET', '/api/v1/pending')).json as {
        bundles: { pending_id: string; session_id: string }[];
      };
      pendingId = list.bundles.find((bundle) => bundle.session_id === sessionId)?.pending_id ?? '';
      return pendingId !== '';
    }, 30_000);

    // A still looks live (its heartbeat is fresh, its lock held): B routes the claim to A's
    // wait and waits for it. At the lease B takes the session over and must not restore
    // the claim its own responder waits on, but deliver it to an agent it starts.
    hang(a.child.pid);
    const answered = await onB('POST', `/api/v1/clarification/${pendingId}/respond`, {
      answers: [{ question_id: 'q1', selected_options: ['generated'] }],
    });
    expect(answered.status).toBe(200);
    expect(answered.json).toMatchObject({ claimed: true });
    const agentText = () => sessionReads(onB).agentText(sessionId);
    await eventually(
      async () => (await agentText()).some((t) => t.includes('"Generated"')),
      30_000,
    );
    expect(childrenOf(b.child.pid).length).toBe(1);
    expect((await agentText()).filter((t) => t.includes('"Generated"'))).toHaveLength(1);
  }, 180_000);
});
