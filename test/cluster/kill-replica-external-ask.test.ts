/**
 * kill -9 of the replica an external agent's question waits on (issue 16),
 * three real `clarion serve` processes on one real PostgreSQL. An MCP client
 * asks on A and waits; A dies. Its session is held by no lease, so no
 * takeover recovers it: the others' delivery poll finds the question's
 * replica gone and detaches it, within the lease and one poll, as a wait
 * that ends would. B's REST read and a socket subscribed on B say so, once,
 * though B and C both poll. A person answers on B; a new MCP client of the
 * same agent collects the answer on B with `wait_for_answer`, the same one
 * each time it asks.
 */
import { once } from 'node:events';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { WAKE_POLL_INTERVAL_MS } from '../../src/tunables.js';
import { bundleView, pendingListReply, type ClarionEvent } from '../../src/wire/index.js';
import { ANSWERS, TWO_QUESTIONS, eventually } from '../support/clarification-harness.js';
import type { Serving } from '../support/clarion-process.js';
import { replicaProcesses } from '../support/replicas.js';
import { callWithin, structured } from '../mcp/mcp-harness.js';

const ADMIN_TOKEN = 'kill-replica-external-ask-token-0123456789';
const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
const LEASE_S = 6;
/** Room over the lease and a poll for a 2-core CI machine. */
const MARGIN_MS = 4_000;
/** Far below the waits asked for: a result within it came from the answer, not a timeout. */
const RESULT_WITHIN_MS = 20_000;
const AGENT = 'far agent';

/** A socket on `/api/v1/events`, subscribed to everything, that keeps every event. */
async function eventsSocket(url: string) {
  const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/api/v1/events`, { headers: auth });
  const frames: { type: string; event?: ClarionEvent }[] = [];
  socket.on('message', (data: Buffer) => {
    frames.push(JSON.parse(data.toString('utf8')) as { type: string; event?: ClarionEvent });
  });
  await once(socket, 'open');
  socket.send(JSON.stringify({ type: 'subscribe', all: true }));
  await eventually(() => Promise.resolve(frames.some((frame) => frame.type === 'subscribed')));
  return {
    socket,
    /** The rows of `pendingId` that `message.updated` events said were detached, still pending. */
    detachedRows: (pendingId: string) =>
      frames.flatMap(({ event }) =>
        event?.type === 'message.updated' &&
        event.message.metadata.pending_id === pendingId &&
        event.message.metadata.status === 'pending' &&
        event.message.metadata.agent_disconnected === true
          ? [event.message.id]
          : [],
      ),
  };
}

async function mcpClient(server: Serving, secret: string): Promise<Client> {
  const client = new Client({ name: AGENT, version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${secret}` } },
    }),
  );
  return client;
}

describe('a replica killed while an external agent waits on it', () => {
  const processes = replicaProcesses(ADMIN_TOKEN);
  const cleanups: (() => unknown)[] = [];

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) {
      await Promise.resolve(cleanup()).catch(() => undefined);
    }
    await processes.stopAll();
  });

  it('is detached by the live replicas once, and its answer is collected on B', async () => {
    const [a, b, c] = await processes.start(['replica-a', 'replica-b', 'replica-c'], {
      CLARION_LEASE_S: String(LEASE_S),
    });
    if (!a || !b || !c) throw new Error('three replicas expected');
    const minted = await fetch(`${b.url}/api/v1/tokens`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: AGENT, kind: 'agent' }),
    });
    expect(minted.status).toBe(201);
    const { secret } = (await minted.json()) as { secret: string };
    const watching = await eventsSocket(b.url);
    cleanups.push(() => {
      watching.socket.close();
    });

    // With a progress token the ask waits on A until answered; A's death cuts it.
    const asker = await mcpClient(a, secret);
    cleanups.push(() => asker.close());
    // The cut call gets nothing from B: its stream was not resumable.
    let cutCallSettled = false;
    void asker
      .callTool({ name: 'ask_user_question', arguments: TWO_QUESTIONS }, CallToolResultSchema, {
        onprogress: () => undefined,
        resetTimeoutOnProgress: true,
        timeout: 300_000,
      })
      .catch(() => undefined)
      .finally(() => {
        cutCallSettled = true;
      });
    const view = async (pendingId: string) => {
      const reply = await fetch(`${b.url}/api/v1/clarification/${pendingId}`, { headers: auth });
      expect(reply.status).toBe(200);
      return bundleView.parse(await reply.json());
    };
    let pendingId: string | undefined;
    await eventually(async () => {
      const list = await fetch(`${b.url}/api/v1/pending`, { headers: auth });
      [pendingId] = pendingListReply.parse(await list.json()).bundles.map((x) => x.pending_id);
      return pendingId !== undefined;
    }, 15_000);
    if (!pendingId) throw new Error('nothing pending');
    const asked = pendingId;
    // Attached: B says a live waiter holds it (on A), and polls several times meanwhile.
    expect(await view(asked)).toMatchObject({ active: true, detached: false });
    await new Promise((resolve) => setTimeout(resolve, 2 * WAKE_POLL_INTERVAL_MS));
    expect(await view(asked)).toMatchObject({ active: true, detached: false });
    expect(watching.detachedRows(asked)).toEqual([]);

    const killedAt = Date.now();
    a.child.kill('SIGKILL');
    expect((await a.exited).signal).toBe('SIGKILL');

    // Within the lease and a poll, B says the agent moved on, and its socket heard it.
    await eventually(async () => (await view(asked)).detached, LEASE_S * 1000 + 20_000);
    expect(Date.now() - killedAt).toBeLessThan(LEASE_S * 1000 + WAKE_POLL_INTERVAL_MS + MARGIN_MS);
    expect(await view(asked)).toMatchObject({ active: true, status: 'pending' });
    await eventually(() => Promise.resolve(watching.detachedRows(asked).length === 2), 10_000);

    // A person answers on B; a new client of the same agent collects it there.
    const answered = await fetch(`${b.url}/api/v1/clarification/${asked}/respond`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify(ANSWERS),
    });
    expect(answered.status).toBe(200);
    expect(await answered.json()).toMatchObject({ claimed: true, status: 'answered' });
    const collector = await mcpClient(b, secret);
    cleanups.push(() => collector.close());
    const answer = {
      status: 'answered',
      pending_id: asked,
      answers: { q1: { selected: [{ id: 'q1_opt2', label: 'Generated' }] } },
    };
    const wait = { pending_id: asked, timeout_seconds: 30 };
    const first = structured(
      await callWithin(collector, RESULT_WITHIN_MS, 'wait_for_answer', wait),
    );
    expect(first).toMatchObject(answer);
    const again = await callWithin(collector, RESULT_WITHIN_MS, 'wait_for_answer', wait);
    expect(structured(again)).toEqual(first);
    expect(await view(asked)).toMatchObject({ status: 'answered', delivery_pending: false });
    expect(cutCallSettled).toBe(false);

    // B and C both polled throughout: each row was detached once, by one of them.
    await new Promise((resolve) => setTimeout(resolve, 2 * WAKE_POLL_INTERVAL_MS));
    const rows = watching.detachedRows(asked);
    expect(rows).toHaveLength(2);
    expect(new Set(rows).size).toBe(2);
  }, 180_000);
});
