import { describe, expect, it } from 'vitest';
import { externalTaskTitle } from './external-session.js';
import { McpSessions, type SessionEntry } from './sessions.js';

function entry(id: string, owner: string, lastSeenMs: number, busy = 0) {
  const closed: string[] = [];
  const value: SessionEntry = {
    id,
    owner,
    lastSeenMs,
    inFlight: () => busy,
    close: () => {
      closed.push(id);
      return Promise.resolve();
    },
  };
  return { value, closed };
}

describe('MCP sessions', () => {
  it('answers a session only to the principal that opened it', () => {
    let now = 1_000;
    const sessions = new McpSessions(() => now);
    sessions.add(entry('s1', 'agent:u:1', 0).value);
    expect(sessions.lookup('s1', 'agent:u:2')).toBeUndefined();
    expect(sessions.lookup('missing', 'agent:u:1')).toBeUndefined();
    now = 5_000;
    expect(sessions.lookup('s1', 'agent:u:1')?.lastSeenMs).toBe(5_000);
  });

  it('makes room by closing idle sessions, oldest first, never busy ones', async () => {
    const now = 10_000;
    const sessions = new McpSessions(() => now, { maxSessions: 3, idleMs: 1_000 });
    const busy = entry('busy', 'o', 0, 1);
    const oldest = entry('oldest', 'o', 100);
    const fresh = entry('fresh', 'o', 9_500);
    for (const { value } of [busy, oldest, fresh]) sessions.add(value);

    expect(await sessions.makeRoom()).toBe(true);
    expect(oldest.closed).toEqual(['oldest']);
    expect(busy.closed).toEqual([]);
    expect(sessions.size).toBe(2);

    sessions.add(entry('another', 'o', 9_900).value);
    // Nothing idle is left: the registry is full.
    expect(await sessions.makeRoom()).toBe(false);
    await sessions.closeAll();
    expect(sessions.size).toBe(0);
    expect(fresh.closed).toEqual(['fresh']);
  });

  it('names an external task after the client, or a default', () => {
    expect(externalTaskTitle('claude-code')).toBe('claude-code');
    expect(externalTaskTitle('  ')).toBe('External agent');
    expect(externalTaskTitle(undefined)).toBe('External agent');
    expect(externalTaskTitle('x'.repeat(300))).toHaveLength(200);
  });
});
