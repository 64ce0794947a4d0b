/**
 * A wait on one replica for a question a newer turn superseded on another
 * (issue 16), two real `clarion serve` processes on one real PostgreSQL. B
 * runs the session: its demo agent's question detached and its turn ended.
 * The agent (its own token, through A) waits on it again with
 * `wait_for_answer`, a live wait held on A; a person's message through B
 * starts a newer turn there. A hears of it through the wake bus and ends
 * that wait with `not_active` within seconds, as a new call would, instead
 * of at its timeout with "still open".
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { issueToken } from '../../src/auth/tokens.js';
import { clarionApi } from '../agents/supervisor-support.js';
import { eventually } from '../support/clarification-harness.js';
import { readStore, replicaProcesses, sessionReads } from '../support/replicas.js';
import { quickDetachEnv } from '../support/quick-detach.js';

const ADMIN_TOKEN = 'superseded-elsewhere-admin-token-0123456789';
/** Long enough that running to it fails the test below. */
const WAIT_TIMEOUT_S = 30;
const ENDS_WITHIN_MS = 10_000;

describe('a wait on A for a question a newer turn on B superseded', () => {
  const processes = replicaProcesses(ADMIN_TOKEN);
  const clients: Client[] = [];

  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close().catch(() => undefined);
    await processes.stopAll();
  });

  it('the asking agent’s live wait on A ends with not_active soon after', async () => {
    const [a, b] = await processes.start(['replica-a', 'replica-b'], quickDetachEnv());
    if (!a || !b) throw new Error('two replicas expected');
    const onB = clarionApi(b.url, ADMIN_TOKEN);
    const { pendingOf } = sessionReads(onB);

    const created = await onB('POST', '/api/v1/tasks', {
      title: 'superseded elsewhere',
      prompt: '/ask-detach',
    });
    expect(created.status).toBe(201);
    const sessionId = (created.json as { session: { id: string } }).session.id;
    await eventually(async () => (await pendingOf(sessionId))?.detached === true, 30_000);
    const ask = await pendingOf(sessionId);
    if (!ask) throw new Error('the ask is pending');
    expect(await processes.leaseHolder(sessionId)).toBe('replica-b');

    // The session's agent, through A: its wait on its own open question is a live one there.
    const agentToken = await readStore(processes.target(), async (store) => {
      const task = await store.db
        .selectFrom('tasks')
        .innerJoin('task_sessions', 'task_sessions.task_id', 'tasks.id')
        .select('tasks.created_by')
        .where('task_sessions.id', '=', sessionId)
        .executeTakeFirstOrThrow();
      if (!task.created_by) throw new Error('the task has no creator');
      const userId = task.created_by;
      return (await issueToken(store, { kind: 'agent', userId, sessionId })).secret;
    });
    const agent = new Client({ name: 'agent-on-a', version: '1.0.0' });
    await agent.connect(
      new StreamableHTTPClientTransport(new URL(`${a.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${agentToken}` } },
      }),
    );
    clients.push(agent);
    const waiting = agent.callTool(
      {
        name: 'wait_for_answer',
        arguments: { pending_id: ask.pending_id, timeout_seconds: WAIT_TIMEOUT_S },
      },
      CallToolResultSchema,
      { onprogress: () => undefined, resetTimeoutOnProgress: true, timeout: 90_000 },
    ) as Promise<CallToolResult>;
    // The wait is attached again: the person sees its asker back.
    await eventually(async () => (await pendingOf(sessionId))?.detached === false, 15_000);

    const sentAt = Date.now();
    const sent = await onB('POST', `/api/v1/sessions/${sessionId}/messages`, {
      text: 'Never mind, use the defaults',
      admission_key: 'instead',
    });
    expect(sent.json).toMatchObject({ outcome: 'sent' });
    const result = await waiting;
    expect(Date.now() - sentAt).toBeLessThan(ENDS_WITHIN_MS);
    expect(result.structuredContent).toMatchObject({ code: 'not_active' });
  });
});
