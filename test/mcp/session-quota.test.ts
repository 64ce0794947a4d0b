/**
 * MCP session quotas through the real HTTP route (issue 17, finding 2): one
 * user opening sessions without end takes the places of their own oldest
 * idle sessions and never locks anyone else out; with every session of theirs
 * busy they get 429 with `Retry-After`; idle sessions expire on a fake clock.
 * A session holding an ask whose call returned `waiting` is busy too: it is
 * never closed for room, so the person's answer still reaches its agent. A
 * request that opens no session (no `initialize`, or a client's close of a
 * shared session this server holds no copy of) takes no place at all.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { issueToken } from '../../src/auth/index.js';
import { findMcpSession } from '../../src/store/index.js';
import { armPause } from '../../src/support/failpoints.js';
import { ensureExternalSession } from '../../src/turns/index.js';
import { DRIVERS } from '../support/databases.js';
import {
  ANSWERS,
  ANSWERS_AS_RECEIVED,
  TWO_QUESTIONS,
  eventually,
} from '../support/clarification-harness.js';
import {
  initialize,
  initializeBody,
  manualTimers,
  mcpHarness,
  ping,
  structured,
  type McpHarness,
} from './mcp-harness.js';

/** A pause point lets its request go by itself after this, should the test never release it. */
const PAUSE_BOUND_MS = 20_000;

describe.each(DRIVERS)('MCP session quotas on %s', (driver) => {
  let m: McpHarness | undefined;

  afterEach(async () => {
    await m?.dispose();
    m = undefined;
  });

  it('1,010 initializes from one user leave another user’s agent able to ask', async () => {
    const h = (m = await mcpHarness(driver));
    const flooder = h.tokens.colleague;
    const first = await initialize(h, flooder);
    expect(first.status).toBe(200);
    // In rounds of 9, below the quota of 16, so each round finds idle sessions to replace.
    for (let sent = 1; sent < 1_010; sent += 9) {
      const round = await Promise.all(
        Array.from({ length: Math.min(9, 1_010 - sent) }, () => initialize(h, flooder)),
      );
      // Every one is served: it takes the place of the flooder's own oldest idle session.
      for (const reply of round) expect(reply.status, reply.text).toBe(200);
    }
    expect(h.endpoint.sessionCount()).toBe(16);
    expect(await ping(h, flooder, first.sessionId ?? '')).toBe(404);

    // Another user's agent connects and asks, and a person answers.
    const client = await h.connect(h.tokens.agent);
    const call = h.call(client, 'ask_user_question', TWO_QUESTIONS);
    await eventually(() => h.h.waiters.pendingIdsOf(h.h.seeded.session.id).length > 0);
    const [pendingId] = h.h.waiters.pendingIdsOf(h.h.seeded.session.id);
    expect((await h.respond(pendingId ?? '', ANSWERS, h.tokens.member)).status).toBe(200);
    expect(structured(await call)).toMatchObject({ status: 'answered', pending_id: pendingId });
    // A thousand requests on two shared cores: generous.
  }, 240_000);

  it('refuses with 429 and Retry-After a user whose every session is busy', async () => {
    const h = (m = await mcpHarness(driver, { route: { sessionLimits: { perPrincipal: 2 } } }));
    // Two clients of the flooder, each with a question waiting: neither session is idle.
    const busy = [];
    const external: string[] = [];
    for (const name of ['busy-1', 'busy-2']) {
      const found = await ensureExternalSession(h.h.store, h.colleague.userId, name);
      if (!found.ok) throw new Error('no external session');
      external.push(found.sessionId);
      busy.push(await h.connect(h.tokens.colleague, name));
    }
    const calls = busy.map((client) =>
      h.call(client, 'ask_user_question', TWO_QUESTIONS).catch(() => undefined),
    );
    await eventually(() =>
      external.every((sessionId) => h.h.waiters.pendingIdsOf(sessionId).length === 1),
    );

    const refused = await initialize(h, h.tokens.colleague);
    expect(refused.status).toBe(429);
    expect(refused.retryAfter).toBe('60');
    expect(refused.sessionId).toBeNull();
    expect(JSON.parse(refused.text)).toMatchObject({
      jsonrpc: '2.0',
      error: { code: -32000, data: { code: 'quota_exceeded', scope: 'principal', limit: 2 } },
    });
    expect(h.endpoint.sessionCount()).toBe(2);
    // Nobody else is refused for it.
    expect((await initialize(h, h.tokens.agent)).status).toBe(200);

    await Promise.all(busy.map((client) => client.close()));
    await Promise.all(calls);
  });

  it('closes sessions idle for the idle time, on a fake clock', async () => {
    const clock = { now: 1_000_000 };
    const timers = manualTimers();
    const h = (m = await mcpHarness(driver, {
      route: { sessionLimits: { idleMs: 600_000 }, nowMs: () => clock.now, timers },
    }));
    const idle = await initialize(h, h.tokens.colleague);
    const kept = await initialize(h, h.tokens.colleague);
    clock.now += 599_999;
    expect(await ping(h, h.tokens.colleague, kept.sessionId ?? '')).toBe(200);
    clock.now += 1;
    timers.fire();
    await eventually(() => h.endpoint.sessionCount() === 1);
    expect(await ping(h, h.tokens.colleague, idle.sessionId ?? '')).toBe(404);
    expect(await ping(h, h.tokens.colleague, kept.sessionId ?? '')).toBe(200);
  });

  /** An ask's call without a progress token returns `waiting` by then; the ask itself is held. */
  const HELD_BOUND_MS = 300;

  /** Asks through `client` without a progress token: the call returns, the ask waits on. */
  async function heldAsk(h: McpHarness, token: string, name: string): Promise<string> {
    const client = await h.connect(token, name);
    const asked = structured(await h.call(client, 'ask_user_question', TWO_QUESTIONS));
    expect(asked).toMatchObject({ status: 'waiting' });
    const pendingId = asked.pending_id as string;
    expect(h.h.waiters.has(pendingId)).toBe(true);
    return pendingId;
  }

  it('at the server bound takes an idle session’s place, never one holding an ask', async () => {
    const h = (m = await mcpHarness(driver, {
      progressIntervalMs: 40,
      route: { callWithoutProgressMs: HELD_BOUND_MS, sessionLimits: { perServer: 3 } },
    }));
    const external = (
      await issueToken(h.h.store, {
        kind: 'external_agent',
        userId: h.h.principals.member.userId,
        name: 'Claude Code',
      })
    ).secret;
    // The oldest two hold asks waiting for a person; the newest is idle.
    const agentAsk = await heldAsk(h, h.tokens.agent, 'agent');
    const externalAsk = await heldAsk(h, external, 'claude-code');
    const idle = await initialize(h, h.tokens.colleague);
    expect(idle.status).toBe(200);

    const newcomer = await initialize(h, h.tokens.outsider);
    expect(newcomer.status, newcomer.text).toBe(200);
    expect(await ping(h, h.tokens.colleague, idle.sessionId ?? '')).toBe(404);
    // Both asks still wait live: neither question reads detached.
    for (const pendingId of [agentAsk, externalAsk]) {
      expect(h.h.waiters.has(pendingId)).toBe(true);
      const rows = await h.h.rows(pendingId);
      expect(rows.every((row) => row.metadata.agent_disconnected !== true)).toBe(true);
    }
  });

  it('refuses a new session, saying why, when every one at the bound holds an ask; the answer still arrives', async () => {
    const h = (m = await mcpHarness(driver, {
      progressIntervalMs: 40,
      route: { callWithoutProgressMs: HELD_BOUND_MS, sessionLimits: { perPrincipal: 1 } },
    }));
    const agent = await h.connect(h.tokens.agent, 'agent');
    const asked = structured(await h.call(agent, 'ask_user_question', TWO_QUESTIONS));
    expect(asked).toMatchObject({ status: 'waiting' });
    const pendingId = asked.pending_id as string;

    // The agent's stdio bridge, say, opens another session with the same token.
    const refused = await initialize(h, h.tokens.agent);
    expect(refused.status, refused.text).toBe(429);
    expect(refused.retryAfter).toBe('60');
    const { error } = JSON.parse(refused.text) as { error: { message: string; data: unknown } };
    expect(error.data).toEqual({ code: 'quota_exceeded', scope: 'principal', limit: 1 });
    expect(error.message).toMatch(/waiting for a person/);
    expect(error.message).toMatch(/close one or retry later/);
    expect(h.endpoint.sessionCount()).toBe(1);

    // The person answers, and the agent collects it on the session it kept.
    expect(h.h.waiters.has(pendingId)).toBe(true);
    expect((await h.respond(pendingId, ANSWERS, h.tokens.member)).status).toBe(200);
    expect(structured(await h.call(agent, 'wait_for_answer', { pending_id: pendingId }))).toEqual({
      status: 'answered',
      pending_id: pendingId,
      answers: ANSWERS_AS_RECEIVED,
    });
    expect(h.h.runtime.prompts).toEqual([]);
  });

  it("tells a fresh agent token whose places its person's other agent tokens hold which tokens hold them", async () => {
    const h = (m = await mcpHarness(driver, {
      progressIntervalMs: 40,
      route: { callWithoutProgressMs: HELD_BOUND_MS, sessionLimits: { perPrincipal: 1 } },
    }));
    const mint = async (name: string) =>
      (
        await issueToken(h.h.store, {
          kind: 'external_agent',
          userId: h.h.principals.member.userId,
          name,
        })
      ).secret;
    await heldAsk(h, await mint('Claude Code'), 'claude-code');

    // Another agent of the same person, its token never used: the place is its person's agents'.
    const refused = await initialize(h, await mint('Codex'));
    expect(refused.status, refused.text).toBe(429);
    const { error } = JSON.parse(refused.text) as { error: { message: string; data: unknown } };
    expect(error.data).toEqual({ code: 'quota_exceeded', scope: 'principal', limit: 1 });
    expect(error.message).not.toMatch(/this token/);
    expect(error.message).toMatch(
      /^too many open MCP sessions for the agent tokens of this person/,
    );
  });

  it('takes no session’s place for a request that opens none', async () => {
    const h = (m = await mcpHarness(driver, { route: { sessionLimits: { perPrincipal: 1 } } }));
    const kept = await initialize(h, h.tokens.colleague);
    expect(kept.status).toBe(200);
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${h.tokens.colleague}`,
    };
    // A call, a malformed initialize, a stream and a close, all without a session ID.
    const strays = [
      { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'ping' }) },
      {
        method: 'POST',
        headers,
        body: JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'initialize', params: {} }),
      },
      { method: 'GET', headers: { ...headers, accept: 'text/event-stream' } },
      { method: 'DELETE', headers },
    ];
    // What only the transport judges: another media type, text that is not JSON, an Accept.
    const unread = [
      {
        method: 'POST',
        headers: { ...headers, accept: 'application/json' },
        body: initializeBody('flood'),
      },
      {
        method: 'POST',
        headers: { ...headers, 'content-type': 'text/plain' },
        body: initializeBody('flood'),
      },
      { method: 'POST', headers, body: '{"jsonrpc":"2.0","id":1,"method":' },
    ];
    for (const init of unread) {
      const response = await fetch(h.url, init);
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.headers.get('mcp-session-id')).toBeNull();
      await response.text();
    }
    for (const init of strays) {
      const response = await fetch(h.url, init);
      const text = await response.text();
      expect(response.status, text).toBe(400);
      expect(JSON.parse(text)).toMatchObject({
        jsonrpc: '2.0',
        error: { code: -32000, message: expect.stringMatching(/send initialize/) as unknown },
      });
    }
    expect(await ping(h, h.tokens.colleague, kept.sessionId ?? '')).toBe(200);
    expect(h.endpoint.sessionCount()).toBe(1);
  });

  it('closes a shared session it holds no copy of without taking a place for it', async () => {
    const clock = { now: 1_000_000 };
    const timers = manualTimers();
    const h = (m = await mcpHarness(driver, {
      progressIntervalMs: 40,
      route: {
        sharedSessions: true,
        callWithoutProgressMs: HELD_BOUND_MS,
        sessionLimits: { perPrincipal: 1, idleMs: 600_000 },
        nowMs: () => clock.now,
        timers,
      },
    }));
    const ended = await initialize(h, h.tokens.colleague);
    const endedId = ended.sessionId ?? '';
    // Its copy here idles out; the session lives on in the store for any replica.
    clock.now += 600_000;
    timers.fire();
    await eventually(() => h.endpoint.sessionCount() === 0);
    // The one place is taken by a session holding an ask.
    const pendingId = await heldAsk(h, h.tokens.colleague, 'busy');

    const response = await fetch(h.url, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${h.tokens.colleague}`, 'mcp-session-id': endedId },
    });
    const text = await response.text();
    expect(response.status, text).toBe(200);
    expect(await findMcpSession(h.h.store, endedId, `user:${h.colleague.userId}`)).toBeUndefined();
    expect(h.endpoint.sessionCount()).toBe(1);
    expect(h.h.waiters.has(pendingId)).toBe(true);
    // Ended: nothing opens it again.
    expect(await ping(h, h.tokens.colleague, endedId)).toBe(404);
  });

  it('opens one copy of a shared session for requests that come together', async () => {
    const clock = { now: 1_000_000 };
    const timers = manualTimers();
    const h = (m = await mcpHarness(driver, {
      route: {
        sharedSessions: true,
        sessionLimits: { idleMs: 600_000 },
        nowMs: () => clock.now,
        timers,
      },
    }));
    const opened = await initialize(h, h.tokens.colleague);
    const sessionId = opened.sessionId ?? '';
    clock.now += 600_000;
    timers.fire();
    await eventually(() => h.endpoint.sessionCount() === 0);

    // The client comes back with a call and its event stream at once; the call opens the copy.
    const paused = armPause('mcp.before_reopen', PAUSE_BOUND_MS);
    let stream: Response | undefined;
    try {
      const pinged = ping(h, h.tokens.colleague, sessionId);
      await paused.reached;
      const streaming = fetch(h.url, {
        headers: {
          accept: 'text/event-stream',
          authorization: `Bearer ${h.tokens.colleague}`,
          'mcp-session-id': sessionId,
          'mcp-protocol-version': '2025-11-25',
        },
      });
      // Time for the stream's request to open a copy of its own, had it one to open.
      await new Promise((resolve) => setTimeout(resolve, 500));
      paused.release();
      expect(await pinged).toBe(200);
      stream = await streaming;
      expect(stream.status).toBe(200);
      expect(h.endpoint.sessionCount()).toBe(1);

      // The client closes its session: its one copy closes, and with it the stream.
      const closed = await fetch(h.url, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${h.tokens.colleague}`, 'mcp-session-id': sessionId },
      });
      expect(closed.status).toBe(200);
      const ended = await Promise.race([
        stream.text().then(() => 'ended'),
        new Promise((resolve) => setTimeout(resolve, 5_000, 'still open')),
      ]);
      expect(ended).toBe('ended');
    } finally {
      paused.release();
      await stream?.body?.cancel().catch(() => undefined);
    }
  });

  it('opens one copy for a request whose lookup began before another request opened it', async () => {
    const clock = { now: 1_000_000 };
    const timers = manualTimers();
    const h = (m = await mcpHarness(driver, {
      progressIntervalMs: 40,
      route: {
        sharedSessions: true,
        callWithoutProgressMs: HELD_BOUND_MS,
        sessionLimits: { idleMs: 600_000 },
        nowMs: () => clock.now,
        timers,
      },
    }));
    const token = h.tokens.colleague;
    const sessionId = (await initialize(h, token)).sessionId ?? '';
    clock.now += 600_000;
    timers.fire();
    await eventually(() => h.endpoint.sessionCount() === 0);
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-11-25',
    };

    // One request found no copy here and still reads the store when the client's ask opens one.
    const paused = armPause('mcp.before_find', PAUSE_BOUND_MS);
    try {
      const pinged = ping(h, token, sessionId);
      await paused.reached;
      const call = { name: 'ask_user_question', arguments: TWO_QUESTIONS };
      const reply = await fetch(h.url, {
        method: 'POST',
        headers,
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: call }),
      });
      const pendingId = /"pending_id\\?":\\?"([^"\\]+)/.exec(await reply.text())?.[1] ?? '';
      expect(h.h.waiters.has(pendingId)).toBe(true);
      paused.release();
      expect(await pinged).toBe(200);

      // The client closes its session: the one copy closes, and the ask it holds ends with it.
      const closed = await fetch(h.url, { method: 'DELETE', headers });
      expect(closed.status).toBe(200);
      expect(h.endpoint.sessionCount()).toBe(0);
      await eventually(() => !h.h.waiters.has(pendingId));
    } finally {
      paused.release();
    }
  });
});
