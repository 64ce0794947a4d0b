/**
 * One server on SQLite killed (SIGKILL) while an external agent's
 * `ask_user_question` waits on it, then started again on its data directory
 * and port. No call waits on the question any more, so the person is told
 * the agent moved on (`detached`), as after a clean stop; the question stays
 * answerable, and the agent, on the same MCP session, finds it with
 * `list_pending_questions` and collects the answer with `wait_for_answer`,
 * the same answer each time it asks. The cut call itself gets nothing from
 * the restarted server: its stream was not resumable. A real `clarion
 * serve`; the MCP SDK's own client with an agent token a person minted.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { bundleView, pendingListReply } from '../../src/wire/index.js';
import { ANSWERS, TWO_QUESTIONS, eventually } from '../support/clarification-harness.js';
import { useServedDatabase } from '../support/clarion-process.js';
import { callWithin, structured } from './mcp-harness.js';

const ADMIN_TOKEN = 'crash-detaches-question-admin-token';
const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
/** Far below the waits asked for: a result within it came from the answer, not a timeout. */
const RESULT_WITHIN_MS = 20_000;

describe('an external agent’s question across a crash of one server on SQLite', () => {
  const served = useServedDatabase();
  let client: Client | undefined;

  afterEach(async () => {
    await client?.close().catch(() => undefined);
  });

  it('reads as detached after the restart, and wait_for_answer collects its answer', async () => {
    const database = await served.open('sqlite');
    const env = { CLARION_ADMIN_TOKEN: ADMIN_TOKEN };
    const server = await database.serve(env);
    const { url } = server;
    const minted = await fetch(`${url}/api/v1/tokens`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'crash agent', kind: 'agent' }),
    });
    expect(minted.status).toBe(201);
    const { secret } = (await minted.json()) as { secret: string };
    client = new Client({ name: 'crash agent', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${secret}` } },
      }),
    );

    // With a progress token the ask blocks until answered; the crash cuts it.
    let cutCallSettled = false;
    const cutCall = client
      .callTool({ name: 'ask_user_question', arguments: TWO_QUESTIONS }, CallToolResultSchema, {
        onprogress: () => undefined,
        resetTimeoutOnProgress: true,
        timeout: 300_000,
      })
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => {
        cutCallSettled = true;
      });
    const view = async (pendingId: string) => {
      const reply = await fetch(`${url}/api/v1/clarification/${pendingId}`, { headers: auth });
      expect(reply.status).toBe(200);
      return bundleView.parse(await reply.json());
    };
    let pendingId: string | undefined;
    await eventually(async () => {
      const list = await fetch(`${url}/api/v1/pending`, { headers: auth });
      [pendingId] = pendingListReply.parse(await list.json()).bundles.map((x) => x.pending_id);
      return pendingId !== undefined;
    }, 15_000);
    if (!pendingId) throw new Error('nothing pending');
    expect(await view(pendingId)).toMatchObject({ active: true, detached: false });

    server.child.kill('SIGKILL');
    expect((await server.exited).signal).toBe('SIGKILL');
    await database.serve({ ...env, CLARION_PORT: new URL(url).port });

    expect(await view(pendingId)).toMatchObject({ active: true, detached: true });
    const listed = structured(
      await callWithin(client, RESULT_WITHIN_MS, 'list_pending_questions', {}),
    );
    expect(listed.pending).toEqual([expect.objectContaining({ pending_id: pendingId })]);

    const collected = callWithin(client, RESULT_WITHIN_MS, 'wait_for_answer', {
      pending_id: pendingId,
      timeout_seconds: 30,
    });
    const answered = await fetch(`${url}/api/v1/clarification/${pendingId}/respond`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify(ANSWERS),
    });
    expect(answered.status).toBe(200);
    const answer = {
      status: 'answered',
      pending_id: pendingId,
      answers: { q1: { selected: [{ id: 'q1_opt2', label: 'Generated' }] } },
    };
    const first = structured(await collected);
    expect(first).toMatchObject(answer);
    // Asked again, the agent reads the one decision again, never a second one.
    const again = await callWithin(client, RESULT_WITHIN_MS, 'wait_for_answer', {
      pending_id: pendingId,
      timeout_seconds: 5,
    });
    expect(structured(again)).toEqual(first);
    expect(cutCallSettled).toBe(false);
    await client.close();
    await cutCall;
  }, 120_000);
});
