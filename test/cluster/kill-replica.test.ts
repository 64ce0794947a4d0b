/**
 * kill -9 of a replica with questions open (issue 16), two real `clarion
 * serve` processes on one real PostgreSQL. A's demo agents wait: one on a
 * live ask, two after their asks detached. A dies by SIGKILL at a failpoint
 * while it delivers an answer to one detached ask: its claim and successor
 * turn committed, its prompt not sent. Within the lease B takes A's sessions
 * over (with PostgreSQL's session lock gone, at its next heartbeat). An answer to the live ask posted through B at once, one to the other
 * detached ask after the takeover, and the answer A never sent, put back by
 * the takeover and given again through B, each reach a demo agent B starts,
 * exactly once; every answer stays answered.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { clarionApi } from '../agents/supervisor-support.js';
import { eventually } from '../support/clarification-harness.js';
import { readStore, replicaProcesses, sessionReads } from '../support/replicas.js';
import { pendingReservations } from '../../src/store/index.js';
import { quickDetachEnv } from '../support/quick-detach.js';

const ADMIN_TOKEN = 'kill-replica-admin-token-0123456789';
const LEASE_S = 6;
/** Room over the lease for a heartbeat's phase and a 2-core CI machine. */
const TAKEOVER_MARGIN_MS = 3_000;
/** A heartbeat and a wake poll (2 s each at this lease) after the last answer arrived. */
const SETTLE_MS = 3_000;

describe('a replica killed with questions open', () => {
  const processes = replicaProcesses(ADMIN_TOKEN);

  afterEach(() => processes.stopAll());

  it('loses no answer: each reaches an agent B starts, once', async () => {
    const lease = { CLARION_LEASE_S: String(LEASE_S), ...quickDetachEnv() };
    // A dies right after it reserves a detached answer's successor turn, before any prompt.
    const [a] = await processes.start(['replica-a'], {
      ...lease,
      CLARION_FAILPOINTS: 'dispatch.after_reservation',
    });
    const [b] = await processes.start(['replica-b'], lease);
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
    const inFlight = await startOnA('/ask-detach');
    await eventually(async () => (await pendingOf(live)) !== undefined, 30_000);
    for (const sessionId of [detached, inFlight]) {
      await eventually(async () => (await pendingOf(sessionId))?.detached === true, 30_000);
    }
    const liveAsk = await pendingOf(live);
    const detachedAsk = await pendingOf(detached);
    const inFlightAsk = await pendingOf(inFlight);
    if (!liveAsk || !detachedAsk || !inFlightAsk) throw new Error('three asks pending');
    const inFlightAnswer = { answers: [{ question_id: 'q1', selected_options: ['generated'] }] };
    /** What B's takeovers reported of the clarifications they recovered. */
    const takeoverReports = () =>
      b
        .output()
        .stdout.split('\n')
        .filter((line) => line.includes('"takeover"') && line.includes('recovery done'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);

    const holderOf = (sessionId: string) => processes.leaseHolder(sessionId);
    for (const sessionId of [live, detached, inFlight]) {
      expect(await holderOf(sessionId)).toBe('replica-a');
    }

    // A takes the answer's delivery itself (it holds the session) and dies at the failpoint.
    const killedAt = Date.now();
    await expect(
      onA('POST', `/api/v1/clarification/${inFlightAsk.pending_id}/respond`, inFlightAnswer),
    ).rejects.toThrow();
    expect((await a.exited).signal).toBe('SIGKILL');

    // At once, before any takeover: B claims it and delivers it itself, since A is gone.
    const answered = await onB('POST', `/api/v1/clarification/${liveAsk.pending_id}/respond`, {
      answers: [{ question_id: 'q1', selected_options: ['generated'] }],
    });
    expect(answered.status).toBe(200);
    expect(answered.json).toMatchObject({ claimed: true });

    // Within the lease B took A's leases over (and gave back those of agents it did not start).
    await eventually(async () => (await holderOf(detached)) !== 'replica-a', 20_000);
    expect(Date.now() - killedAt).toBeLessThan(LEASE_S * 1000 + TAKEOVER_MARGIN_MS);
    expect(await holderOf(inFlight)).not.toBe('replica-a');

    // The answer A never sent is not lost in its claim: B's takeover rolled back the successor
    // turn A reserved (nothing was sent) and put the bundle back, open and detached; the person,
    // whose request A cut, gives it again through B and wins it.
    await eventually(() => takeoverReports().length > 0, 10_000);
    expect(takeoverReports()).toEqual([
      expect.objectContaining({ reservationsRolledBack: 1, reservationsKept: 0 }),
    ]);
    expect(await pendingOf(inFlight)).toMatchObject({
      pending_id: inFlightAsk.pending_id,
      detached: true,
    });
    const retried = await onB(
      'POST',
      `/api/v1/clarification/${inFlightAsk.pending_id}/respond`,
      inFlightAnswer,
    );
    expect(retried.status).toBe(200);
    expect(retried.json).toMatchObject({ claimed: true, status: 'answered' });

    // After the takeover: the detached ask's answer resumes its agent on B.
    const late = await onB('POST', `/api/v1/clarification/${detachedAsk.pending_id}/respond`, {
      answers: [{ question_id: 'q1', selected_options: ['hand_written'] }],
    });
    expect(late.status).toBe(200);

    const said = async (sessionId: string, words: string) =>
      (await agentText(sessionId)).filter((text) => text.includes(words)).length;
    const expected = [
      [live, '"Generated"'],
      [detached, '"Hand-written"'],
      [inFlight, '"Generated"'],
    ] as const;
    for (const [sessionId, words] of expected) {
      await eventually(async () => (await said(sessionId, words)) > 0, 30_000);
    }
    for (const sessionId of [live, detached, inFlight]) {
      expect(await holderOf(sessionId)).toBe('replica-b');
    }
    // Once each, counted again after a heartbeat and a wake poll more (a duplicate prompt would
    // come from a later beat or a poll's redelivery); all stay answered, no reservation left.
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    for (const [sessionId, words] of expected) expect(await said(sessionId, words)).toBe(1);
    for (const ask of [liveAsk, detachedAsk, inFlightAsk]) {
      const view = await onB('GET', `/api/v1/clarification/${ask.pending_id}`);
      expect(view.json).toMatchObject({ status: 'answered', delivery_pending: false });
    }
    expect(await readStore(processes.target(), pendingReservations)).toEqual([]);
  }, 180_000);
});
