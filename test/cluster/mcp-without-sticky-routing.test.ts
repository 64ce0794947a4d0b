/**
 * An external agent's MCP session behind a load balancer that does not stick
 * (issue 16): two real `clarion serve` processes on one real PostgreSQL
 * behind a small proxy the test steers. The session opened on A is served by
 * B without a new `initialize` (same client, same external session); an ask
 * held on B whose call went away is collected with `wait_for_answer` on A,
 * answered through B's REST. The client's close through A closes B's copy.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  LATEST_PROTOCOL_VERSION,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { pendingListReply, taskListReply } from '../../src/wire/index.js';
import { ANSWERS, TWO_QUESTIONS, eventually } from '../support/clarification-harness.js';
import type { Serving } from '../support/clarion-process.js';
import { replicaProcesses } from '../support/replicas.js';
import { structured } from '../mcp/mcp-harness.js';

const ADMIN_TOKEN = 'mcp-no-sticky-admin-token-0123456789';
const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };

/** A proxy in front of the replicas; each request goes to whichever `target` says now. */
async function steeringProxy(initial: Serving) {
  let target = initial;
  const served = new Map<string, number>();
  const server = http.createServer((request, response) => {
    const upstreamUrl = new URL(request.url ?? '/', target.url);
    served.set(target.url, (served.get(target.url) ?? 0) + 1);
    const upstream = http.request(
      upstreamUrl,
      { method: request.method, headers: { ...request.headers, host: upstreamUrl.host } },
      (reply) => {
        response.writeHead(reply.statusCode ?? 502, reply.headers);
        reply.pipe(response);
      },
    );
    upstream.on('error', () => response.destroy());
    // A client that hangs up hangs up on the replica too, as a balancer does.
    response.on('close', () => upstream.destroy());
    request.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    steer(to: Serving) {
      target = to;
    },
    served: (replica: Serving) => served.get(replica.url) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

async function pendingIds(server: Serving): Promise<string[]> {
  const response = await fetch(`${server.url}/api/v1/pending`, { headers: auth });
  return pendingListReply.parse(await response.json()).bundles.map((bundle) => bundle.pending_id);
}

describe('MCP without sticky routing', () => {
  const processes = replicaProcesses(ADMIN_TOKEN);
  const cleanups: (() => Promise<unknown>)[] = [];

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
    await processes.stopAll();
  });

  it('a session opened on A is served by B, and an ask held on B is collected on A', async () => {
    const [a, b] = await processes.start(['replica-a', 'replica-b']);
    if (!a || !b) throw new Error('two replicas expected');
    const proxy = await steeringProxy(a);
    cleanups.push(proxy.close);

    const client = new Client({ name: 'balanced-agent', version: '2.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${proxy.url}/mcp`), {
      requestInit: { headers: auth },
    });
    await client.connect(transport);
    cleanups.push(() => client.close());
    expect(proxy.served(a)).toBeGreaterThan(0);

    // B never saw this session's initialize, and serves it.
    proxy.steer(b);
    const call = new AbortController();
    const held = client.callTool(
      { name: 'ask_user_question', arguments: TWO_QUESTIONS },
      CallToolResultSchema,
      { signal: call.signal, onprogress: () => undefined, resetTimeoutOnProgress: true },
    ) as Promise<CallToolResult>;
    let pendingId: string | undefined;
    await eventually(async () => {
      [pendingId] = await pendingIds(b);
      return pendingId !== undefined;
    }, 15_000);
    if (!pendingId) throw new Error('nothing pending');
    expect(proxy.served(b)).toBeGreaterThan(0);
    // The same client on both replicas: one external task, named after it.
    const tasks = taskListReply.parse(
      await (await fetch(`${a.url}/api/v1/tasks`, { headers: auth })).json(),
    ).tasks;
    expect(tasks.map((task) => task.title)).toEqual(['balanced-agent']);

    // The agent's call goes away; later it collects the answer through A.
    call.abort();
    await expect(held).rejects.toThrow();
    proxy.steer(a);
    const collected = client.callTool(
      { name: 'wait_for_answer', arguments: { pending_id: pendingId, timeout_seconds: 30 } },
      CallToolResultSchema,
      { onprogress: () => undefined, resetTimeoutOnProgress: true },
    ) as Promise<CallToolResult>;
    const answered = await fetch(
      `${b.url}/api/v1/clarification/${encodeURIComponent(pendingId)}/respond`,
      {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify(ANSWERS),
      },
    );
    expect(answered.status).toBe(200);
    expect(structured(await collected)).toMatchObject({
      status: 'answered',
      pending_id: pendingId,
      answers: { q1: { selected: [{ id: 'q1_opt2', label: 'Generated' }] } },
    });

    // The client's own close, through A, ends the shared session: no replica opens it
    // again, and B closes the copy it opened (a request for it there is not found).
    const mcpSessionId = transport.sessionId;
    if (!mcpSessionId) throw new Error('no MCP session');
    const onB = () =>
      fetch(`${b.url}/mcp`, {
        method: 'POST',
        headers: {
          ...auth,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': mcpSessionId,
          'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }),
      });
    expect((await onB()).status).toBe(200);
    await transport.terminateSession();
    await eventually(async () => (await onB()).status === 404, 10_000);
    const store = await openStore(processes.target());
    try {
      expect(await store.db.selectFrom('mcp_sessions').select('id').execute()).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
