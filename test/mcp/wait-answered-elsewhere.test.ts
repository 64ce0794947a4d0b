/**
 * An external agent's `wait_for_answer` on replica B, for a question it asked
 * on A, answered on A in the moment between B's read of the question and
 * B's attaching it again (a pause point holds B there). The claim found no
 * wait to hand to, and nothing about a decision on A wakes B's live wait: B
 * must see the question no longer pending and read the answer at once, not
 * sit out the wait's bound. Two whole servers in this process on one real
 * PostgreSQL, real MCP clients.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server.js';
import { armPause } from '../../src/support/failpoints.js';
import { ANSWERS, ANSWERS_AS_RECEIVED, TWO_QUESTIONS } from '../support/clarification-harness.js';
import { inProcessReplicas } from '../support/in-process-replicas.js';
import { bearerApi } from '../support/in-process-server.js';

const ADMIN_TOKEN = 'wait-answered-elsewhere-admin-0123456789';
/** The ask's own live wait, short so that its call comes back `open` and the question detaches. */
const LIVE_WAIT_MS = 300;
/** The wait's own bound: far beyond `PROMPTLY_MS`. */
const WAIT_SECONDS = 30;
const PROMPTLY_MS = 10_000;
/** The pause lets the wait go by itself after this, should the test never release it. */
const PAUSE_BOUND_MS = 40_000;

describe('wait_for_answer on another replica than the answer', { timeout: 60_000 }, () => {
  const replicas = inProcessReplicas(ADMIN_TOKEN, { budgets: { liveWaitMs: LIVE_WAIT_MS } });
  const clients: Client[] = [];

  afterEach(async () => {
    await Promise.allSettled(clients.splice(0).map((client) => client.close()));
    await replicas.dispose();
  });

  async function connect(server: RunningServer, secret: string): Promise<Client> {
    const client = new Client({ name: 'my-claude', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${secret}` } },
      }),
    );
    clients.push(client);
    return client;
  }

  async function call(client: Client, name: string, args: Record<string, unknown>) {
    const result = (await client.callTool(
      { name, arguments: args },
      CallToolResultSchema,
    )) as CallToolResult;
    return result.structuredContent as Record<string, unknown>;
  }

  it('reads an answer given on A while it attached the question on B', async () => {
    await replicas.open('postgres', { migrated: true });
    const [a, b] = [await replicas.serve('replica-a'), await replicas.serve('replica-b')];
    const api = bearerApi(a.url, ADMIN_TOKEN);
    const minted = await api<{ secret: string }>('POST', '/api/v1/tokens', {
      name: 'my agent',
      kind: 'agent',
    });
    expect(minted.status).toBe(201);

    const asked = await call(await connect(a, minted.json.secret), 'ask_user_question', {
      ...TWO_QUESTIONS,
    });
    expect(asked.status).toBe('open');
    const pendingId = asked.pending_id as string;

    const paused = armPause('wait_for_answer.before_attach', PAUSE_BOUND_MS);
    try {
      const waiting = call(await connect(b, minted.json.secret), 'wait_for_answer', {
        pending_id: pendingId,
        timeout_seconds: WAIT_SECONDS,
      });
      await paused.reached;
      const answered = await api('POST', `/api/v1/clarification/${pendingId}/respond`, ANSWERS);
      expect(answered.status).toBe(200);
      const releasedAt = Date.now();
      paused.release();
      const result = await waiting;
      expect(Date.now() - releasedAt).toBeLessThan(PROMPTLY_MS);
      expect(result).toMatchObject({
        status: 'answered',
        pending_id: pendingId,
        answers: ANSWERS_AS_RECEIVED,
      });
    } finally {
      paused.release();
    }
  });
});
