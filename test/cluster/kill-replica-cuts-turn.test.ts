/**
 * A replica's death cuts off the turn its agent worked on (issue 16), with
 * two real `clarion serve` processes on one real PostgreSQL. A runs the demo
 * agent waiting on its question; A is killed. B takes the session over, and
 * its recovery writes in the transcript, once, that the turn ended because
 * the server running the agent stopped (`loss: 'replica_gone'`) and its
 * message must be sent again. A replica started later writes no second note.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { TURN_INTERRUPTED_TEXTS } from '../../src/wire/index.js';
import { clarionApi } from '../agents/supervisor-support.js';
import { eventually } from '../support/clarification-harness.js';
import { replicaProcesses } from '../support/replicas.js';

const ADMIN_TOKEN = 'kill-replica-cuts-turn-token-0123456789';
const LEASE_S = 6;

describe('a replica killed while its agent works on a turn', () => {
  const processes = replicaProcesses(ADMIN_TOKEN);

  afterEach(async () => {
    await processes.stopAll();
  });

  it('says once, on the replica that took over, that the turn ended', async () => {
    const [a, b] = await processes.start(['replica-a', 'replica-b'], {
      CLARION_LEASE_S: String(LEASE_S),
    });
    if (!a || !b) throw new Error('two replicas expected');
    const onA = clarionApi(a.url, ADMIN_TOKEN);
    const onB = clarionApi(b.url, ADMIN_TOKEN);

    const created = await onA('POST', '/api/v1/tasks', { title: 'Dies with A', prompt: '/ask' });
    expect(created.status).toBe(201);
    const { session, task } = created.json as { session: { id: string }; task: { id: string } };
    const state = async () =>
      (
        (await onB('GET', `/api/v1/tasks/${task.id}/sessions`)).json as {
          sessions: { id: string; state: string }[];
        }
      ).sessions.find((one) => one.id === session.id)?.state;
    await eventually(async () => (await state()) === 'waiting_for_input', 30_000);
    expect(await processes.leaseHolder(session.id)).toBe('replica-a');

    a.child.kill('SIGKILL');
    expect((await a.exited).signal).toBe('SIGKILL');

    const notes = async () =>
      (
        (await onB('GET', `/api/v1/sessions/${session.id}/messages?limit=500`)).json.messages as {
          author: string;
          type: string;
          content: string;
          metadata: Record<string, unknown>;
        }[]
      ).filter((message) => message.metadata.turn_outcome === 'interrupted');
    // B's takeover makes the session idle after it closed the turn.
    await eventually(async () => (await state()) === 'idle', LEASE_S * 1000 + 30_000);
    const [note, ...more] = await notes();
    expect(more).toEqual([]);
    expect(note).toMatchObject({
      author: 'system',
      type: 'status',
      content: TURN_INTERRUPTED_TEXTS.replica_gone,
      metadata: { turn_outcome: 'interrupted', loss: 'replica_gone' },
    });

    // A replica started again (a start-up recovery of the same sessions) writes no second note.
    const [again] = await processes.start(['replica-c'], { CLARION_LEASE_S: String(LEASE_S) });
    expect(again).toBeDefined();
    expect(await notes()).toHaveLength(1);
  }, 180_000);
});
