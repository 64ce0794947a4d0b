/**
 * A message whose admission on a stopping replica commits only after that
 * replica gave its leases back (issue 16), two real `clarion serve`
 * processes on one real PostgreSQL. The request outlived the stop's drain
 * bound (`CLARION_SHUTDOWN_DRAIN_S`): it waited on its session's lock. A
 * stopping replica queues it, and the session has no holder; the other
 * replica must still run it, not leave it queued until the next message.
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { childrenOf, clarionApi } from '../agents/supervisor-support.js';
import { eventually } from '../support/clarification-harness.js';
import { replicaProcesses } from '../support/replicas.js';

const ADMIN_TOKEN = 'late-queued-message-token-0123456789';

interface Row {
  author: string;
  content: string;
}

describe('a message queued on a stopping replica after its leases went back', () => {
  const processes = replicaProcesses(ADMIN_TOKEN);
  afterEach(() => processes.stopAll());

  it('runs on the other replica', async () => {
    const [b] = await processes.start(['replica-b'], { CLARION_AGENT_IDLE_S: '1' });
    const [a] = await processes.start(['replica-a'], { CLARION_SHUTDOWN_DRAIN_S: '1' });
    if (!a || !b?.child.pid) throw new Error('two replicas expected');
    const bPid = b.child.pid;
    const onA = clarionApi(a.url, ADMIN_TOKEN);
    const onB = clarionApi(b.url, ADMIN_TOKEN);
    const created = await onB('POST', '/api/v1/tasks', { title: 'late', prompt: 'hello' });
    expect(created.status).toBe(201);
    const sessionId = (created.json as { session: { id: string } }).session.id;
    const rows = async () =>
      (
        (await onB('GET', `/api/v1/sessions/${sessionId}/messages?limit=500`)).json as {
          messages: Row[];
        }
      ).messages;
    // Its turn over, B stops the idle agent and gives its lease back: nobody holds the session.
    await eventually(async () => (await rows()).some((row) => row.author === 'agent'), 30_000);
    await eventually(
      async () =>
        childrenOf(bPid).length === 0 && (await processes.leaseHolder(sessionId)) === undefined,
      30_000,
    );

    // The session's lock, held: A's admission waits on it past A's drain bound.
    const holder = new pg.Client({ connectionString: processes.target().url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [
        `task-session:${sessionId}`,
      ]);
      const sent = onA('POST', `/api/v1/sessions/${sessionId}/messages`, {
        text: 'sent while A stops',
        admission_key: 'late-on-a',
      }).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 300));
      a.child.kill('SIGTERM');
      // A's drain ends at its 1 s bound and it gives its leases back; then the lock goes.
      await eventually(
        () => Promise.resolve(a.output().stdout.includes('leases given back')),
        4_000,
      );
      await holder.query('COMMIT');
      await sent;
    } finally {
      await holder.end();
    }
    expect((await a.exited).code).toBe(0);

    // B runs it: the message is sent and its agent answers.
    await eventually(async () => {
      const all = await rows();
      const at = all.findIndex((row) => row.content === 'sent while A stops');
      return at >= 0 && all.slice(at).some((row) => row.author === 'agent');
    }, 20_000);
  }, 150_000);
});
