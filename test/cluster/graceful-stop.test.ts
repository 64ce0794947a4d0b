/**
 * A replica's graceful stop (SIGTERM) with calls in flight (issue 16), two
 * real `clarion serve` processes on one real PostgreSQL. An external agent's
 * live `ask_user_question` and a `wait_for_answer` held on A get their
 * result (`open`, with the pending ID) when A stops, instead of a cut call;
 * the answer posted through B is then collected on B. While a stop waits out
 * `CLARION_DRAIN_DELAY_S`, `/healthz` says 503 `draining` and requests are
 * still answered, so a load balancer takes the replica out first.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, it } from 'vitest';
import { pendingListReply } from '../../src/wire/index.js';
import { ANSWERS, TWO_QUESTIONS, eventually } from '../support/clarification-harness.js';
import type { Serving } from '../support/clarion-process.js';
import { replicaProcessesOfTest } from '../support/replicas.js';
import { callWithin, structured } from '../mcp/mcp-harness.js';

const ADMIN_TOKEN = 'graceful-stop-admin-token-0123456789';
const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
/** Far below the 30 s waits asked for: a result within it came from the stop, not a timeout. */
const RESULT_WITHIN_MS = 10_000;

async function agentOn(server: Serving, name: string): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: auth },
    }),
  );
  return client;
}

function call(client: Client, name: string, args: Record<string, unknown>) {
  return callWithin(client, RESULT_WITHIN_MS, name, args);
}

// At once, each on its own database: most of each test waits on a stop or its drain delay.
describe.concurrent('a replica stopped gracefully', () => {
  it('hands calls in flight their pending ID; the answer is collected on another replica', async (context) => {
    const { expect } = context;
    const clients: Client[] = [];
    const processes = replicaProcessesOfTest(ADMIN_TOKEN, context, () =>
      Promise.allSettled(clients.map((client) => client.close())),
    );
    const [a, b] = await processes.start(['replica-a', 'replica-b']);
    if (!a || !b) throw new Error('two replicas expected');
    const asker = await agentOn(a, 'graceful agent');
    const waiter = await agentOn(a, 'graceful watcher');
    clients.push(asker, waiter);

    const asked = call(asker, 'ask_user_question', TWO_QUESTIONS);
    let pendingId: string | undefined;
    await eventually(async () => {
      const list = await fetch(`${b.url}/api/v1/pending`, { headers: auth });
      [pendingId] = pendingListReply.parse(await list.json()).bundles.map((x) => x.pending_id);
      return pendingId !== undefined;
    }, 15_000);
    if (!pendingId) throw new Error('nothing pending');
    const waited = call(waiter, 'wait_for_answer', { pending_id: pendingId, timeout_seconds: 30 });
    // The wait is registered on A before A stops (its first read is quick).
    await new Promise((resolve) => setTimeout(resolve, 500));

    const exited = await a.stop();
    expect(exited.code).toBe(0);
    // The operator's log says the stop began and what it handed back, not only that it ended.
    const said = `${exited.stdout}${exited.stderr}`;
    expect(said).toContain('stopping: /healthz says draining');
    expect(said).toMatch(/"leases_released":\d+.*other replicas take these sessions at once/);
    expect(structured(await asked)).toMatchObject({ status: 'open', pending_id: pendingId });
    expect(structured(await waited)).toMatchObject({ status: 'open', pending_id: pendingId });

    const collector = await agentOn(b, 'graceful agent');
    clients.push(collector);
    const collected = call(collector, 'wait_for_answer', {
      pending_id: pendingId,
      timeout_seconds: 30,
    });
    const answered = await fetch(`${b.url}/api/v1/clarification/${pendingId}/respond`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify(ANSWERS),
    });
    expect(answered.status).toBe(200);
    expect(structured(await collected)).toMatchObject({
      status: 'answered',
      pending_id: pendingId,
      answers: { q1: { selected: [{ id: 'q1_opt2', label: 'Generated' }] } },
    });
  }, 90_000);

  it('says draining on /healthz while it waits out CLARION_DRAIN_DELAY_S, and still answers', async (context) => {
    const { expect } = context;
    const processes = replicaProcessesOfTest(ADMIN_TOKEN, context);
    const [a] = await processes.start(['replica-a'], { CLARION_DRAIN_DELAY_S: '3' });
    if (!a) throw new Error('one replica expected');
    const healthy = await fetch(`${a.url}/healthz`);
    expect(healthy.status).toBe(200);
    expect(await healthy.json()).toMatchObject({ status: 'ok' });

    a.child.kill('SIGTERM');
    let health: Response | undefined;
    await eventually(async () => {
      health = await fetch(`${a.url}/healthz`);
      return health.status === 503;
    }, 2_000);
    expect(await health?.json()).toMatchObject({
      status: 'draining',
      replica: { id: 'replica-a' },
    });
    const tasks = await fetch(`${a.url}/api/v1/tasks`, { headers: auth });
    expect(tasks.status).toBe(200);
    expect((await a.exited).code).toBe(0);
  }, 60_000);
});
