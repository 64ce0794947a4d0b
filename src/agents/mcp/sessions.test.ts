import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { externalTaskTitle } from './external-session.js';
import { replayInitialize } from './server.js';
import {
  DEFAULT_MCP_SESSION_LIMITS,
  McpSessions,
  type McpSessionLimits,
  type SessionEntry,
} from './sessions.js';

interface Fixture {
  sessions: McpSessions;
  closed: string[];
  /** Busy sessions: ID → calls in flight. */
  busy: Map<string, number>;
  /** Sessions holding agents' asks past their calls, until their turns end: ID → how many. */
  held: Map<string, number>;
  /** Sessions holding other clients' asks past their calls: ID → how many. */
  asks: Map<string, number>;
  clock: { now: number };
  /** Admits and fills one session; the admission's refusal otherwise. */
  open(id: string, owner: string, user?: string): Promise<{ scope: string } | undefined>;
}

function fixture(limits: Partial<McpSessionLimits> = {}): Fixture {
  const clock = { now: 1_000 };
  const closed: string[] = [];
  const busy = new Map<string, number>();
  const held = new Map<string, number>();
  const asks = new Map<string, number>();
  const sessions = new McpSessions(() => clock.now, { ...DEFAULT_MCP_SESSION_LIMITS, ...limits });
  return {
    sessions,
    closed,
    busy,
    held,
    asks,
    clock,
    async open(id, owner, user = owner.split(':')[1] ?? owner) {
      const admission = await sessions.admit({ owner, user });
      if (!admission.ok) return { scope: admission.scope };
      const entry: SessionEntry = {
        id,
        owner,
        user,
        lastSeenMs: clock.now,
        inFlight: () => busy.get(id) ?? 0,
        held: () => (held.get(id) ?? 0) + (asks.get(id) ?? 0),
        heldForTurns: () => held.get(id) ?? 0,
        close: () => {
          closed.push(id);
          sessions.remove(id, entry);
          return Promise.resolve();
        },
      };
      admission.slot.fill(entry);
      clock.now += 1;
      return undefined;
    },
  };
}

describe('MCP sessions', () => {
  it('answers a session only to the principal that opened it', async () => {
    const f = fixture();
    await f.open('s1', 'agent:u:1');
    expect(f.sessions.lookup('s1', 'agent:u:2')).toBeUndefined();
    expect(f.sessions.lookup('missing', 'agent:u:1')).toBeUndefined();
    f.clock.now = 5_000;
    expect(f.sessions.lookup('s1', 'agent:u:1')?.lastSeenMs).toBe(5_000);
  });

  it('gives a principal at its quota the place of its own oldest idle session', async () => {
    const f = fixture({ perPrincipal: 3 });
    await f.open('other', 'user:b');
    for (const id of ['busy', 'oldest', 'newer']) await f.open(id, 'user:a');
    f.busy.set('busy', 1);

    expect(await f.open('fourth', 'user:a')).toBeUndefined();
    expect(f.closed).toEqual(['oldest']);
    expect(await f.open('fifth', 'user:a')).toBeUndefined();
    expect(f.closed).toEqual(['oldest', 'newer']);
    // Another principal's session and a busy one are never taken.
    expect(f.sessions.lookup('other', 'user:b')).toBeDefined();
    expect(f.sessions.lookup('busy', 'user:a')).toBeDefined();
  });

  it('refuses a principal whose every session has a call in flight', async () => {
    const f = fixture({ perPrincipal: 2 });
    await f.open('a1', 'user:a');
    await f.open('a2', 'user:a');
    f.busy.set('a1', 1);
    f.busy.set('a2', 2);
    expect(await f.open('a3', 'user:a')).toEqual({ scope: 'principal' });
    expect(f.closed).toEqual([]);
    // Others are not affected.
    expect(await f.open('b1', 'user:b')).toBeUndefined();
    // Once a call ends, that session is idle and gives up its place.
    f.busy.set('a2', 0);
    expect(await f.open('a3', 'user:a')).toBeUndefined();
    expect(f.closed).toEqual(['a2']);
  });

  it('counts places reserved by initializes still in progress', async () => {
    const f = fixture({ perPrincipal: 2 });
    const first = await f.sessions.admit({ owner: 'user:a', user: 'a' });
    const second = await f.sessions.admit({ owner: 'user:a', user: 'a' });
    expect(first.ok && second.ok).toBe(true);
    expect(await f.sessions.admit({ owner: 'user:a', user: 'a' })).toMatchObject({
      ok: false,
      scope: 'principal',
      limit: 2,
    });
    if (first.ok) first.slot.release();
    expect((await f.sessions.admit({ owner: 'user:a', user: 'a' })).ok).toBe(true);
  });

  it('bounds all principals of one user together', async () => {
    const f = fixture({ perPrincipal: 2, perUser: 3 });
    await f.open('own', 'user:a', 'a');
    await f.open('agent1', 'agent:a:s1', 'a');
    await f.open('agent2', 'agent:a:s2', 'a');
    f.busy.set('agent1', 1);
    f.busy.set('agent2', 1);
    // The user's own token is under its quota, but the user is at theirs: its idle one goes.
    expect(await f.open('own2', 'user:a', 'a')).toBeUndefined();
    expect(f.closed).toEqual(['own']);
    f.busy.set('own2', 1);
    expect(await f.open('agent3', 'agent:a:s3', 'a')).toEqual({ scope: 'user' });
  });

  it('never lets one user fill the server: 1,010 initializes leave room for others', async () => {
    const f = fixture();
    for (let i = 0; i < 1_010; i += 1) {
      expect(await f.open(`flood-${i}`, 'user:flooder')).toBeUndefined();
    }
    expect(f.sessions.size).toBe(DEFAULT_MCP_SESSION_LIMITS.perPrincipal);
    expect(f.closed).toHaveLength(1_010 - DEFAULT_MCP_SESSION_LIMITS.perPrincipal);
    // The survivors are the newest.
    expect(f.sessions.lookup('flood-1009', 'user:flooder')).toBeDefined();
    expect(f.sessions.lookup('flood-0', 'user:flooder')).toBeUndefined();
    expect(await f.open('victim', 'agent:victim:s1')).toBeUndefined();
    // The defaults keep one user, all their principals together, below the server's bound.
    expect(DEFAULT_MCP_SESSION_LIMITS.perUser).toBeLessThan(DEFAULT_MCP_SESSION_LIMITS.perServer);
  });

  it('at the server bound takes the oldest idle session anywhere, else refuses', async () => {
    const f = fixture({ perServer: 2 });
    await f.open('a', 'user:a');
    await f.open('b', 'user:b');
    expect(await f.open('c', 'user:c')).toBeUndefined();
    expect(f.closed).toEqual(['a']);
    f.busy.set('b', 1);
    f.busy.set('c', 1);
    expect(await f.open('d', 'user:d')).toEqual({ scope: 'server' });
  });

  it('closes sessions idle for the idle time, on a fake clock, never busy ones', async () => {
    const f = fixture({ idleMs: 10 * 60_000 });
    await f.open('idle', 'user:a');
    await f.open('busy', 'user:a');
    await f.open('used', 'user:a');
    f.busy.set('busy', 1);
    f.clock.now += 10 * 60_000 - 10;
    expect(await f.sessions.sweep()).toBe(0);
    f.sessions.touch('used');
    f.clock.now += 10;
    expect(await f.sessions.sweep()).toBe(1);
    expect(f.closed).toEqual(['idle']);
    f.clock.now += 10 * 60_000;
    expect(await f.sessions.sweep()).toBe(1);
    expect(f.closed).toEqual(['idle', 'used']);
    expect(f.sessions.lookup('busy', 'user:a')).toBeDefined();
    await f.sessions.closeAll();
    expect(f.sessions.size).toBe(0);
    expect(f.closed).toEqual(['idle', 'used', 'busy']);
  });

  it('does not close as idle a session holding an agent’s ask, until the ask ends', async () => {
    const f = fixture({ idleMs: 600_000 });
    await f.open('s1', 'agent:u:1');
    f.held.set('s1', 1);
    f.clock.now += 600_000;
    expect(await f.sessions.sweep()).toBe(0);
    f.held.delete('s1');
    expect(await f.sessions.sweep()).toBe(1);
    expect(f.closed).toEqual(['s1']);
  });

  it('never takes the place of a session holding an ask; with none idle, refuses', async () => {
    const f = fixture({ perPrincipal: 3 });
    for (const id of ['agent-ask', 'client-ask', 'idle']) await f.open(id, 'user:a');
    f.held.set('agent-ask', 1);
    f.asks.set('client-ask', 1);
    expect(await f.open('fourth', 'user:a')).toBeUndefined();
    expect(f.closed).toEqual(['idle']);
    f.busy.set('fourth', 1);
    expect(await f.open('fifth', 'user:a')).toEqual({ scope: 'principal' });
    expect(f.closed).toEqual(['idle']);
    // Once the client's ask ends, its session is idle and gives up its place.
    f.asks.delete('client-ask');
    expect(await f.open('fifth', 'user:a')).toBeUndefined();
    expect(f.closed).toEqual(['idle', 'client-ask']);
  });

  it('closes as idle a session holding only another client’s ask', async () => {
    const f = fixture({ idleMs: 600_000 });
    await f.open('s1', 'external-agent:u');
    f.asks.set('s1', 1);
    f.clock.now += 600_000;
    expect(await f.sessions.sweep()).toBe(1);
    expect(f.closed).toEqual(['s1']);
  });

  it('keeps a copy opened again while the closed copy of its session was still closing', async () => {
    const clock = { now: 1_000 };
    const sessions = new McpSessions(() => clock.now, {
      ...DEFAULT_MCP_SESSION_LIMITS,
      idleMs: 100,
    });
    const open = async (closing: Promise<void>) => {
      const admission = await sessions.admit({ owner: 'user:a', user: 'a' });
      if (!admission.ok) throw new Error('refused');
      const entry: SessionEntry = {
        id: 's1',
        owner: 'user:a',
        user: 'a',
        lastSeenMs: clock.now,
        inFlight: () => 0,
        // As the transport's close reports it: once its streams have ended.
        close: async () => {
          await closing;
          sessions.remove('s1', entry);
        },
      };
      admission.slot.fill(entry);
      return entry;
    };
    let closed: () => void = () => undefined;
    await open(
      new Promise((resolve) => {
        closed = resolve;
      }),
    );
    clock.now += 100;
    const sweeping = sessions.sweep();
    // The client's next request opens the session again from the store meanwhile.
    const reopened = await open(Promise.resolve());
    closed();
    expect(await sweeping).toBe(1);
    expect(sessions.lookup('s1', 'user:a')).toBe(reopened);
    await reopened.close();
    expect(sessions.size).toBe(0);
  });

  it('names an external task after the client, or a default', () => {
    expect(externalTaskTitle('claude-code')).toBe('claude-code');
    expect(externalTaskTitle('  ')).toBe('External agent');
    expect(externalTaskTitle(undefined)).toBe('External agent');
    expect(externalTaskTitle('x'.repeat(300))).toHaveLength(200);
  });

  it('writes the bidi controls of a client’s name out as markers in its task’s title', () => {
    expect(externalTaskTitle('claude\u202Eedoc-')).toBe('claude⟨U+202E⟩edoc-');
    expect(externalTaskTitle('v10\u200F.5')).toBe('v10⟨U+200F⟩.5');
    // Only controls: nothing visible, so no name.
    expect(externalTaskTitle('\u202E\u2066')).toBe('External agent');
    // The cut keeps a marker whole or leaves it out.
    expect(externalTaskTitle(`${'x'.repeat(195)}\u202Eab`)).toBe('x'.repeat(195));
    expect(externalTaskTitle(`${'x'.repeat(190)}\u202Eab`)).toBe(`${'x'.repeat(190)}⟨U+202E⟩ab`);
  });
});

describe('a session opened again from the store', () => {
  it('replays its client’s initialize, then initialized under the session’s ID', async () => {
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => 'shared-1',
    });
    const mcp = new McpServer({ name: 'clarion', version: '0' });
    const errors: Error[] = [];
    let initialized = 0;
    mcp.server.onerror = (error) => errors.push(error);
    mcp.server.oninitialized = () => (initialized += 1);
    await mcp.connect(transport);
    try {
      const clientInfo = { name: 'claude-code', version: '2.1' };
      await replayInitialize(transport, {
        clientInfo,
        capabilities: { roots: {} },
        protocolVersion: LATEST_PROTOCOL_VERSION,
      });
      expect(transport.sessionId).toBe('shared-1');
      expect(mcp.server.getClientVersion()).toEqual(clientInfo);
      // Refused without the ID: the transport would report it, and the server not hear it.
      expect(errors).toEqual([]);
      expect(initialized).toBe(1);
    } finally {
      await mcp.close();
    }
  });
});
