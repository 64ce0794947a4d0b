/**
 * How long the store keeps an MCP session that any replica, or this server
 * after a restart, may open again. A coding agent's session can stay open
 * for days, mostly quiet: its copy here idles out after minutes, and its next
 * call must open it again from the store. Clients that never close theirs are
 * forgotten once unused for `MCP_SHARED_SESSION_UNUSED_MS`, counted from
 * their last use, never from their `initialize`; a use is written at most
 * once per `MCP_SHARED_SESSION_USE_RECORD_MS`, by the sweep, never on a call.
 * A fake clock, the sweep run by hand (its timer never fires), the real route
 * on both engines.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  MCP_SESSION_IDLE_MS,
  MCP_SHARED_SESSION_UNUSED_MS,
  MCP_SHARED_SESSION_USE_RECORD_MS,
} from '../../src/tunables.js';
import { DRIVERS } from '../support/databases.js';
import { initialize, manualTimers, mcpHarness, ping, type McpHarness } from './mcp-harness.js';

const DAY_MS = 24 * 60 * 60 * 1000;

describe.each(DRIVERS)('an MCP session kept in the store on %s', (driver) => {
  let m: McpHarness | undefined;

  afterEach(async () => {
    await m?.dispose();
    m = undefined;
  });

  async function harness() {
    const clock = { now: Date.now() };
    const h = (m = await mcpHarness(driver, {
      route: { sharedSessions: true, nowMs: () => clock.now, timers: manualTimers() },
    }));
    const sweep = () => h.endpoint.sweep();
    const lastUsed = async (sessionId: string) =>
      (
        await h.h.store.db
          .selectFrom('mcp_sessions')
          .select('last_used_at')
          .where('id', '=', sessionId)
          .executeTakeFirst()
      )?.last_used_at;
    return { h, clock, sweep, lastUsed };
  }

  it('opens a session again, in use for longer than the bound since its initialize', async () => {
    const { h, clock, sweep } = await harness();
    const token = h.tokens.colleague;
    const sessionId = (await initialize(h, token)).sessionId ?? '';
    // A call every eight days, each after its copy here idled out: 40 days in use.
    const gapMs = 8 * DAY_MS;
    for (let used = 0; used * gapMs <= MCP_SHARED_SESSION_UNUSED_MS + gapMs; used++) {
      clock.now += gapMs;
      await sweep();
      expect(h.endpoint.sessionCount()).toBe(0);
      expect(await ping(h, token, sessionId)).toBe(200);
      clock.now += MCP_SHARED_SESSION_USE_RECORD_MS;
      await sweep();
    }
  });

  it('forgets a session once it went unused for the bound, and not before', async () => {
    const { h, clock, sweep } = await harness();
    const token = h.tokens.colleague;
    const sessionId = (await initialize(h, token)).sessionId ?? '';
    clock.now += MCP_SESSION_IDLE_MS;
    await sweep();
    expect(h.endpoint.sessionCount()).toBe(0);

    clock.now += MCP_SHARED_SESSION_UNUSED_MS - MCP_SESSION_IDLE_MS - 1;
    await sweep();
    expect(await ping(h, token, sessionId)).toBe(200);

    // Used just now: the bound starts again from this use.
    clock.now += MCP_SHARED_SESSION_USE_RECORD_MS;
    await sweep();
    clock.now += MCP_SESSION_IDLE_MS;
    await sweep();
    expect(h.endpoint.sessionCount()).toBe(0);
    clock.now += MCP_SHARED_SESSION_UNUSED_MS - 2 * MCP_SESSION_IDLE_MS;
    await sweep();
    expect(await ping(h, token, sessionId)).toBe(200);

    clock.now += MCP_SHARED_SESSION_USE_RECORD_MS;
    await sweep();
    clock.now += MCP_SHARED_SESSION_UNUSED_MS + DAY_MS;
    await sweep();
    expect(await ping(h, token, sessionId)).toBe(404);
  });

  it('refuses an initialize whose capabilities nest deeper than any client’s, keeping nothing', async () => {
    const { h } = await harness();
    const depth = 100_000;
    const capabilities = `${'{"x":'.repeat(depth)}{}${'}'.repeat(depth)}`;
    const body =
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",' +
      `"capabilities":${capabilities},"clientInfo":{"name":"deep","version":"1"}}}`;
    const response = await fetch(h.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${h.tokens.colleague}`,
      },
      body,
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      jsonrpc: '2.0',
      error: { code: -32602, message: expect.stringContaining('capabilities') as unknown },
    });
    expect(h.endpoint.sessionCount()).toBe(0);
    expect(await h.h.store.db.selectFrom('mcp_sessions').select('id').execute()).toEqual([]);
  });

  it('writes a use once per interval, never on the call itself', async () => {
    const { h, clock, sweep, lastUsed } = await harness();
    const token = h.tokens.colleague;
    const sessionId = (await initialize(h, token)).sessionId ?? '';
    const opened = (await lastUsed(sessionId)) ?? '';
    expect(opened).not.toBe('');

    clock.now += MCP_SHARED_SESSION_USE_RECORD_MS - 1;
    expect(await ping(h, token, sessionId)).toBe(200);
    await sweep();
    expect(await lastUsed(sessionId)).toBe(opened);

    clock.now += 1;
    expect(await ping(h, token, sessionId)).toBe(200);
    expect(await lastUsed(sessionId)).toBe(opened);
    await sweep();
    const recorded = (await lastUsed(sessionId)) ?? '';
    expect(recorded > opened).toBe(true);

    // Nothing used since: nothing written, however long it stays open.
    clock.now += 2 * MCP_SHARED_SESSION_USE_RECORD_MS;
    await sweep();
    expect(await lastUsed(sessionId)).toBe(recorded);
  });
});
