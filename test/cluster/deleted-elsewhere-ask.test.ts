/**
 * An external agent's live ask held on A whose session a person deletes
 * through B (issue 16), two real `clarion serve` processes on one real
 * PostgreSQL: the ask ends within seconds saying the question was closed, as
 * a delete through A would end it, instead of holding the agent until its
 * live-wait bound on a question whose rows are gone.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { QUESTION_CLOSED_MESSAGE } from '../../src/agents/mcp/results.js';
import { clarionApi } from '../agents/supervisor-support.js';
import { toolErrorText } from '../mcp/mcp-harness.js';
import { TWO_QUESTIONS, eventually } from '../support/clarification-harness.js';
import { replicaProcesses } from '../support/replicas.js';

const ADMIN_TOKEN = 'deleted-elsewhere-admin-token-0123456789';
const ENDS_WITHIN_MS = 10_000;

describe('a live ask on A whose session is deleted through B', () => {
  const processes = replicaProcesses(ADMIN_TOKEN);
  const clients: Client[] = [];

  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close().catch(() => undefined);
    await processes.stopAll();
  });

  it('ends with not_active soon after the delete', { timeout: 90_000 }, async () => {
    const [a, b] = await processes.start(['replica-a', 'replica-b']);
    if (!a || !b) throw new Error('two replicas expected');
    const onB = clarionApi(b.url, ADMIN_TOKEN);
    const client = new Client({ name: 'deleted-elsewhere-agent', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${a.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } },
      }),
    );
    clients.push(client);
    const asking = client.callTool(
      { name: 'ask_user_question', arguments: TWO_QUESTIONS },
      CallToolResultSchema,
      { onprogress: () => undefined, resetTimeoutOnProgress: true, timeout: 120_000 },
    ) as Promise<CallToolResult>;
    let sessionId: string | undefined;
    await eventually(async () => {
      const list = (await onB('GET', '/api/v1/pending')).json as {
        bundles: { session_id: string }[];
      };
      sessionId = list.bundles[0]?.session_id;
      return sessionId !== undefined;
    }, 15_000);
    if (!sessionId) throw new Error('nothing pending');

    const deletedAt = Date.now();
    expect((await onB('DELETE', `/api/v1/sessions/${sessionId}`)).status).toBe(200);
    const result = await Promise.race([
      asking,
      new Promise<'still waiting'>((resolve) => setTimeout(resolve, 30_000, 'still waiting')),
    ]);
    expect(result).not.toBe('still waiting');
    expect(Date.now() - deletedAt).toBeLessThan(ENDS_WITHIN_MS);
    if (result === 'still waiting') return;
    expect(result.structuredContent).toMatchObject({ code: 'not_active' });
    expect(toolErrorText(result)).toBe(QUESTION_CLOSED_MESSAGE);
  });
});
