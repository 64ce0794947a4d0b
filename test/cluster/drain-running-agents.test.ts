/**
 * A replica's graceful stop (SIGTERM) with its own agents running, two real
 * `clarion serve` processes on one real PostgreSQL and the demo agent. A
 * request in flight keeps the stop's drain going, as any upload does. Once
 * the stop began, no turn starts there: a message queued behind an open
 * question stays queued in the store (its agent would have been told that
 * Clarion cannot be reached) and runs on the other replica once the stop
 * gave its lease back. The stop writes each running turn's end before it
 * closes the store, and logs no error. A request still in flight when the
 * drain's bound (`CLARION_SHUTDOWN_DRAIN_S`) has passed is cut.
 */
import { request } from 'node:http';
import { describe, it } from 'vitest';
import { clarionApi } from '../agents/supervisor-support.js';
import { eventually } from '../support/clarification-harness.js';
import type { Exited, Serving } from '../support/clarion-process.js';
import { replicaProcessesOfTest } from '../support/replicas.js';
import { SHUTDOWN_DRAIN_MS } from '../../src/tunables.js';

const ADMIN_TOKEN = 'drain-running-agents-token-0123456789';
/** How long the slow request stays in flight once the stop began. */
const SLOW_REQUEST_MS = 4_000;

interface Row {
  type: string;
  author: string;
  content: string;
  metadata: Record<string, unknown>;
}

/** A task's body sent in pieces: a request in flight while the stop begins. */
function slowTask(url: string, finishAfterMs: number): Promise<number> {
  const body = Buffer.from(JSON.stringify({ title: 'slow', prompt: 'y'.repeat(2_000) }));
  return new Promise((resolve, reject) => {
    const sent = request(
      `${url}/api/v1/tasks`,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${ADMIN_TOKEN}`,
          'content-type': 'application/json',
          'content-length': String(body.length),
        },
      },
      (reply) => {
        reply.resume();
        reply.on('end', () => {
          resolve(reply.statusCode ?? 0);
        });
      },
    );
    sent.on('error', reject);
    sent.write(body.subarray(0, 10));
    setTimeout(() => sent.end(body.subarray(10)), finishAfterMs);
  });
}

/**
 * A task's body that never finishes: a request in flight for as long as the
 * server keeps its connection. Resolves when the server cuts it.
 */
function endlessTask(url: string): Promise<void> {
  return new Promise((resolve) => {
    const sent = request(`${url}/api/v1/tasks`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${ADMIN_TOKEN}`,
        'content-type': 'application/json',
        'content-length': '1000',
      },
    });
    sent.on('error', () => {
      resolve();
    });
    sent.on('close', () => {
      resolve();
    });
    sent.write('{"title":');
  });
}

/** The JSON log lines at level error or above. */
function errorLines(exited: Exited): string[] {
  return `${exited.stdout}\n${exited.stderr}`
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .filter((line) => {
      try {
        return ((JSON.parse(line) as { level?: number }).level ?? 0) >= 50;
      } catch {
        return false;
      }
    });
}

// At once, each on its own database: most of each test waits on a stop's drain or an agent.
describe.concurrent('a replica stopped while its agents run', () => {
  const reads = (server: Serving) => {
    const api = clarionApi(server.url, ADMIN_TOKEN);
    return {
      api,
      rows: async (sessionId: string) =>
        (
          (await api('GET', `/api/v1/sessions/${sessionId}/messages?limit=500`)).json as {
            messages: Row[];
          }
        ).messages,
    };
  };

  it('starts no turn while draining; the queued message is asked on the other replica', async (context) => {
    const { expect } = context;
    const processes = replicaProcessesOfTest(ADMIN_TOKEN, context);
    const [a, b] = await processes.start(['replica-a', 'replica-b']);
    if (!a || !b) throw new Error('two replicas expected');
    const onA = reads(a);
    const onB = reads(b);
    const created = await onA.api('POST', '/api/v1/tasks', { title: 'drain', prompt: '/ask' });
    expect(created.status).toBe(201);
    const sessionId = (created.json as { session: { id: string } }).session.id;
    await eventually(
      async () => (await onA.rows(sessionId)).some((row) => row.type === 'clarification_request'),
      30_000,
    );
    const queued = await onA.api('POST', `/api/v1/sessions/${sessionId}/messages`, {
      text: '/ask-multi',
      admission_key: 'queued-behind-the-ask',
    });
    expect(queued.status).toBe(202);

    const slow = slowTask(a.url, SLOW_REQUEST_MS);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const exited = await a.stop();
    expect(exited.code).toBe(0);
    expect(await slow).toBe(201);
    expect(errorLines(exited)).toEqual([]);

    // Once A gave its lease back, B runs the queued message with nothing else sent: its agent asks.
    await eventually(async () => {
      const rows = await onB.rows(sessionId);
      const sent = rows.findIndex((row) => row.author === 'user' && row.content === '/ask-multi');
      return sent >= 0 && rows.slice(sent).some((row) => row.type === 'clarification_request');
    }, 30_000);
    expect(await processes.leaseHolder(sessionId)).toBe('replica-b');
    const rows = await onB.rows(sessionId);
    // The ask that was live when the stop began came back open; nothing told the agent that
    // Clarion could not be reached, and the queued message was sent once.
    expect(rows.filter((row) => row.content.includes('could not reach Clarion'))).toEqual([]);
    expect(rows.filter((row) => row.author === 'user').map((row) => row.content)).toEqual([
      '/ask',
      '/ask-multi',
    ]);
  }, 150_000);

  it('cuts a request still in flight once CLARION_SHUTDOWN_DRAIN_S has passed', async (context) => {
    const { expect } = context;
    const processes = replicaProcessesOfTest(ADMIN_TOKEN, context);
    const drainS = 1;
    const [a] = await processes.start(['replica-a'], { CLARION_SHUTDOWN_DRAIN_S: String(drainS) });
    if (!a) throw new Error('one replica expected');
    const endless = endlessTask(a.url);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const asked = Date.now();
    const exited = await a.stop();
    const tookMs = Date.now() - asked;
    await endless;
    expect(exited.code).toBe(0);
    // Cut at its configured bound, far short of the default one.
    expect(exited.stdout).toContain('requests still in flight at shutdown are cut');
    expect(exited.stdout).toContain(`"bound_ms":${String(drainS * 1000)}`);
    expect(tookMs).toBeGreaterThanOrEqual(drainS * 1000);
    expect(tookMs).toBeLessThan(SHUTDOWN_DRAIN_MS);
    expect(errorLines(exited)).toEqual([]);
  }, 150_000);

  it('writes the running turns’ ends before closing the store, and logs no error', async (context) => {
    const { expect } = context;
    const processes = replicaProcessesOfTest(ADMIN_TOKEN, context);
    const [a, b] = await processes.start(['replica-a', 'replica-b']);
    if (!a || !b) throw new Error('two replicas expected');
    const onA = reads(a);
    const onB = reads(b);
    const sessions: string[] = [];
    const taskOf = new Map<string, string>();
    for (const title of ['one', 'two', 'three']) {
      const created = await onA.api('POST', '/api/v1/tasks', { title, prompt: '/ask' });
      expect(created.status).toBe(201);
      const { task, session } = created.json as { task: { id: string }; session: { id: string } };
      sessions.push(session.id);
      taskOf.set(session.id, task.id);
    }
    for (const sessionId of sessions) {
      await eventually(
        async () => (await onA.rows(sessionId)).some((row) => row.type === 'clarification_request'),
        30_000,
      );
    }
    const exited = await a.stop();
    expect(exited.code).toBe(0);
    expect(errorLines(exited)).toEqual([]);
    // Each turn's end is in the store: the sessions read idle on B at once, with no takeover.
    for (const sessionId of sessions) {
      const listed = await onB.api('GET', `/api/v1/tasks/${taskOf.get(sessionId) ?? ''}/sessions`);
      const { sessions: states } = listed.json as { sessions: { id: string; state: string }[] };
      expect(states.find((session) => session.id === sessionId)?.state).toBe('idle');
    }
  }, 150_000);

  it('says in the transcript that the stop ended a turn in progress', async (context) => {
    const { expect } = context;
    const processes = replicaProcessesOfTest(ADMIN_TOKEN, context);
    const [a, b] = await processes.start(['replica-a', 'replica-b']);
    if (!a || !b) throw new Error('two replicas expected');
    const onA = reads(a);
    const onB = reads(b);
    // An ask whose wait is live when the stop begins: the agent is still in its turn.
    const created = await onA.api('POST', '/api/v1/tasks', { title: 'cut', prompt: '/ask' });
    expect(created.status).toBe(201);
    const sessionId = (created.json as { session: { id: string } }).session.id;
    await eventually(
      async () => (await onA.rows(sessionId)).some((row) => row.type === 'clarification_request'),
      30_000,
    );
    expect((await a.stop()).code).toBe(0);
    // Ended by its agent (the ask came back open) or by the stop, which says so: never silently.
    const rows = await onB.rows(sessionId);
    const notes = rows.filter(
      (row) => row.author === 'system' && row.metadata.turn_outcome === 'interrupted',
    );
    const replied = rows.some((row) => row.content.includes('continue when you answer'));
    expect(notes.length + (replied ? 1 : 0)).toBe(1);
    for (const note of notes) {
      expect(note.metadata).toMatchObject({ loss: 'restart' });
      expect(note.content).toContain('Send the message again');
    }
  }, 150_000);
});
