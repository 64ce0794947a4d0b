/**
 * A tool call sent under the JSON-RPC ID of one its MCP session still runs,
 * as a client resending the same message after its connection dropped does.
 * The SDK's transport keys a call's response stream by that ID, so it would
 * send the running call's result on the new request's stream (an agent told
 * "open, the answer will come as a new message") and the new call's own
 * result to nobody: an answer handed to it would be lost. `/mcp` refuses it
 * instead. Raw HTTP, since the SDK's client never reuses an ID.
 */
import { describe, expect, it } from 'vitest';
import { OUTCOMES } from '../../src/wire/index.js';
import { DRIVERS } from '../support/databases.js';
import { ANSWERS, TWO_QUESTIONS, eventually } from '../support/clarification-harness.js';
import { initializeBody, mcpHarnessPerTest } from './mcp-harness.js';

const CALL_ID = 7;
const ASK = JSON.stringify({
  jsonrpc: '2.0',
  id: CALL_ID,
  method: 'tools/call',
  params: { name: 'ask_user_question', arguments: TWO_QUESTIONS, _meta: { progressToken: 1 } },
});

describe.each(DRIVERS)('a tool call under the ID of one still running, on %s', (driver) => {
  const m = mcpHarnessPerTest(driver, { progressIntervalMs: 40 });

  function headers(sessionId?: string): Record<string, string> {
    return {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${m.tokens.agent}`,
      'mcp-protocol-version': '2025-11-25',
      ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
    };
  }

  async function openSession(): Promise<string> {
    const opened = await fetch(m.url, {
      method: 'POST',
      headers: headers(),
      body: initializeBody('raw client'),
    });
    const sessionId = opened.headers.get('mcp-session-id') ?? '';
    await opened.text();
    const initialized = await fetch(m.url, {
      method: 'POST',
      headers: headers(sessionId),
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    await initialized.text();
    return sessionId;
  }

  async function askedPendingId(): Promise<string> {
    await eventually(() => m.h.waiters.pendingIdsOf(m.h.seeded.session.id).length > 0);
    const [pendingId] = m.h.waiters.pendingIdsOf(m.h.seeded.session.id);
    if (pendingId === undefined) throw new Error('nothing asked');
    return pendingId;
  }

  /** The result an SSE reply carried for the call, if any. */
  function resultIn(sse: string): Record<string, unknown> | undefined {
    for (const line of sse.split('\n')) {
      if (!line.startsWith('data: ')) continue;
      const message = JSON.parse(line.slice(6)) as {
        id?: unknown;
        result?: { structuredContent?: Record<string, unknown> };
      };
      if (message.id === CALL_ID && message.result) return message.result.structuredContent;
    }
    return undefined;
  }

  it('is refused while the first waits, and the first still gets the answer', async () => {
    const sessionId = await openSession();
    const first = await fetch(m.url, { method: 'POST', headers: headers(sessionId), body: ASK });
    const firstText = first.text();
    const pendingId = await askedPendingId();

    const again = await fetch(m.url, { method: 'POST', headers: headers(sessionId), body: ASK });
    expect(again.status).toBe(OUTCOMES.request_id_in_use.status);
    expect(await again.json()).toEqual({
      jsonrpc: '2.0',
      id: CALL_ID,
      error: {
        code: -32600,
        message: OUTCOMES.request_id_in_use.message,
        data: { code: 'conflict' },
      },
    });

    const reply = await m.respond(pendingId, ANSWERS, m.tokens.member);
    expect(reply.status).toBe(200);
    expect(resultIn(await firstText)).toMatchObject({ status: 'answered', pending_id: pendingId });
  });

  it('is refused when one batch carries two calls under one ID', async () => {
    const sessionId = await openSession();
    const call = (prompt: string) => ({
      ...(JSON.parse(ASK) as object),
      params: {
        name: 'ask_user_question',
        arguments: {
          questions: [{ ...TWO_QUESTIONS.questions[0], prompt }],
        },
      },
    });
    const batch = await fetch(m.url, {
      method: 'POST',
      headers: headers(sessionId),
      body: JSON.stringify([call('Which database first?'), call('Which queue first?')]),
    });
    expect(batch.status).toBe(OUTCOMES.request_id_in_use.status);
    expect(await batch.json()).toMatchObject({ id: CALL_ID, error: { code: -32600 } });
    // Neither call ran: nothing was asked.
    expect(m.h.waiters.pendingIdsOf(m.h.seeded.session.id)).toEqual([]);
  });

  it('resent after its connection dropped, the answer still reaches the agent', async () => {
    const sessionId = await openSession();
    const dropped = new AbortController();
    const first = await fetch(m.url, {
      method: 'POST',
      headers: headers(sessionId),
      body: ASK,
      signal: dropped.signal,
    });
    expect(first.status).toBe(200);
    const pendingId = await askedPendingId();
    dropped.abort();

    const again = await fetch(m.url, { method: 'POST', headers: headers(sessionId), body: ASK });
    // Let in once the first call has ended, refused while it still runs.
    const resent = again.status === 200 ? again.text() : Promise.resolve('');
    if (again.status !== 200) await again.text();

    await eventually(async () => {
      const rows = await m.h.rows(pendingId);
      return m.h.waiters.has(pendingId) || rows.every((row) => row.metadata.agent_disconnected);
    });
    const reply = await m.respond(pendingId, ANSWERS, m.tokens.member);
    expect(reply.status).toBe(200);
    const result = resultIn(await resent);
    if (result?.status === 'answered') return;
    // Nobody was waiting when the person answered: the answer resumes the agent with a new turn.
    expect(result).toBeUndefined();
    await eventually(() => m.h.runtime.prompts.length > 0);
  });
});
