/**
 * An answer posted through B to a detached question of a session A holds:
 * A takes the delivery and dies (SIGKILL, at the failpoint just after it
 * reserved the successor turn) before it sends the agent anything. B's
 * responder is still waiting for A. B takes the session over within the
 * lease and, since nothing reached the agent, puts the answer back: the
 * responder hears at once that it was not delivered (not after the 30 s
 * delivery budget, and not a "recorded" that recovery then withdraws), and
 * the person's retry through B reaches an agent B starts, once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { messagesByPendingId } from '../../src/store/index.js';
import { clarionApi } from '../agents/supervisor-support.js';
import { eventually } from '../support/clarification-harness.js';
import { readStore, replicaProcesses, sessionReads } from '../support/replicas.js';
import { quickDetachEnv } from '../support/quick-detach.js';

const ADMIN_TOKEN = 'kill-while-delivering-admin-token-0123456789';
const LEASE_S = 6;
/** The margin over the lease on a busy 2-core machine; the delivery budget is 30 s. */
const MARGIN_MS = 6_000;
const HAND_WRITTEN = { answers: [{ question_id: 'q1', selected_options: ['hand_written'] }] };

describe('a replica that dies delivering an answer posted through another', () => {
  const processes = replicaProcesses(ADMIN_TOKEN);
  afterEach(() => processes.stopAll());

  it('the responder hears it was not delivered within the lease, and a retry reaches the agent once', async () => {
    const [a] = await processes.start(['replica-a'], {
      CLARION_LEASE_S: String(LEASE_S),
      CLARION_FAILPOINTS: 'dispatch.after_reservation',
      ...quickDetachEnv(),
    });
    const [b] = await processes.start(['replica-b'], {
      CLARION_LEASE_S: String(LEASE_S),
      ...quickDetachEnv(),
    });
    if (!a || !b) throw new Error('two replicas expected');
    const onA = clarionApi(a.url, ADMIN_TOKEN);
    const onB = clarionApi(b.url, ADMIN_TOKEN);
    const created = await onA('POST', '/api/v1/tasks', { title: 'ask', prompt: '/ask-detach' });
    const sessionId = (created.json as { session: { id: string } }).session.id;
    const { pendingOf, agentText } = sessionReads(onB);
    await eventually(async () => (await pendingOf(sessionId))?.detached === true, 30_000);
    const asked = await pendingOf(sessionId);
    if (!asked) throw new Error('no pending bundle');
    const respondPath = `/api/v1/clarification/${asked.pending_id}/respond`;

    const startedAt = performance.now();
    const first = await onB('POST', respondPath, HAND_WRITTEN);
    const tookMs = performance.now() - startedAt;
    // A took the delivery and died with the successor turn reserved, nothing sent.
    expect((await a.exited).signal).toBe('SIGKILL');
    expect(first).toMatchObject({
      status: 500,
      json: { code: 'internal', error: 'clarification response could not be delivered' },
    });
    expect(tookMs).toBeLessThan(LEASE_S * 1000 + MARGIN_MS);
    const rows = await readStore(processes.target(), (store) =>
      messagesByPendingId(store, asked.pending_id),
    );
    expect(rows.map((row) => [row.metadata.status, row.metadata.delivery_by])).toEqual([
      ['pending', undefined],
    ]);

    const retry = await onB('POST', respondPath, HAND_WRITTEN);
    expect(retry).toMatchObject({ status: 200, json: { claimed: true, status: 'answered' } });
    await eventually(
      async () => (await agentText(sessionId)).some((text) => text.includes('"Hand-written"')),
      30_000,
    );
    // One heartbeat and one poll later, still once.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const said = await agentText(sessionId);
    expect(said.filter((text) => text.includes('"Hand-written"'))).toHaveLength(1);
  }, 120_000);
});
