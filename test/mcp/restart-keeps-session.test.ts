/**
 * One server on SQLite restarted under an external agent's MCP session: the
 * ask in flight gets its pending ID when the server stops (`open`, "call
 * wait_for_answer"), and that call on the same connection, after the
 * restart, collects the answer. A real `clarion serve`, stopped and started
 * again on its data directory and port; the MCP SDK's own client.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { pendingListReply } from '../../src/wire/index.js';
import { ANSWERS, TWO_QUESTIONS, eventually } from '../support/clarification-harness.js';
import { useServedDatabase } from '../support/clarion-process.js';
import { callWithin, structured } from './mcp-harness.js';

const ADMIN_TOKEN = 'restart-keeps-mcp-session-admin-token';
const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
/** Far below the waits asked for: a result within it came from the stop, not a timeout. */
const RESULT_WITHIN_MS = 20_000;

function call(client: Client, name: string, args: Record<string, unknown>) {
  return callWithin(client, RESULT_WITHIN_MS, name, args);
}

describe('an MCP session across a restart of one server on SQLite', () => {
  const served = useServedDatabase();
  let client: Client | undefined;

  afterEach(async () => {
    await client?.close().catch(() => undefined);
  });

  it('collects the answer on the same connection after the restart', async () => {
    const database = await served.open('sqlite');
    const env = { CLARION_ADMIN_TOKEN: ADMIN_TOKEN };
    const server = await database.serve(env);
    const { url } = server;
    client = new Client({ name: 'restart agent', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: auth } }),
    );

    const asked = call(client, 'ask_user_question', TWO_QUESTIONS);
    let pendingId: string | undefined;
    await eventually(async () => {
      const list = await fetch(`${url}/api/v1/pending`, { headers: auth });
      [pendingId] = pendingListReply.parse(await list.json()).bundles.map((x) => x.pending_id);
      return pendingId !== undefined;
    }, 15_000);
    if (!pendingId) throw new Error('nothing pending');

    expect((await server.stop()).code).toBe(0);
    expect(structured(await asked)).toMatchObject({ status: 'open', pending_id: pendingId });
    await database.serve({ ...env, CLARION_PORT: new URL(url).port });

    const collected = call(client, 'wait_for_answer', {
      pending_id: pendingId,
      timeout_seconds: 30,
    });
    const answered = await fetch(`${url}/api/v1/clarification/${pendingId}/respond`, {
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
});
