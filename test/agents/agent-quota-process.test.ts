/**
 * The running-agent quota in the built server with real demo agent processes
 * (issue 17, finding 9): with `CLARION_AGENTS_PER_USER=1`, a second start is
 * 429 with `Retry-After`, no task row is written and no process is spawned;
 * deleting the first task stops its agent and frees the place.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../support/clarification-harness.js';
import { startServing, type Serving } from '../support/clarion-process.js';
import { freshDatabase, type TestDatabase } from '../support/databases.js';

const ADMIN_TOKEN = 'quota-test-admin-token-0123456789';

/** Live direct children of `pid`, from /proc. */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // After the command's closing parenthesis: state, then the parent's pid.
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(ppid) === pid && state !== 'Z') children.push(Number(entry));
    } catch {
      // The process ended while the list was read: it is no child any more.
    }
  }
  return children;
}

describe('running-agent quota with real agent processes', () => {
  let database: TestDatabase | undefined;
  let server: Serving | undefined;

  afterEach(async () => {
    await server?.stop();
    await database?.dispose();
  });

  it('refuses the second agent of a user with 429 and spawns nothing', async () => {
    database = await freshDatabase('sqlite');
    if (database.target.driver !== 'sqlite') throw new Error('sqlite expected');
    server = await startServing({
      CLARION_DATA_DIR: database.target.dataDir,
      CLARION_ADMIN_TOKEN: ADMIN_TOKEN,
      CLARION_AGENTS_PER_USER: '1',
    });
    const { url, child } = server;
    const api = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${url}${path}`, {
        method,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return {
        status: response.status,
        retryAfter: response.headers.get('retry-after'),
        json: (text === '' ? {} : JSON.parse(text)) as Record<string, unknown>,
      };
    };
    const pid = child.pid ?? 0;
    const taskCount = async () =>
      ((await api('GET', '/api/v1/tasks')).json.tasks as unknown[]).length;

    const first = await api('POST', '/api/v1/tasks', { title: 'first', prompt: 'hello' });
    expect(first.status).toBe(201);
    await eventually(() => childrenOf(pid).length === 1, 20_000);
    const agent = childrenOf(pid);

    const refused = await api('POST', '/api/v1/tasks', { title: 'second', prompt: 'hello' });
    expect(refused.status).toBe(429);
    expect(refused.retryAfter).toBe('60');
    expect(refused.json).toMatchObject({ code: 'quota_exceeded' });
    expect(await taskCount()).toBe(1);

    // A task without a prompt starts nothing; its first message would, and is refused.
    const idle = await api('POST', '/api/v1/tasks', { title: 'idle' });
    expect(idle.status).toBe(201);
    const sessionId = (idle.json.session as { id: string }).id;
    const message = { text: 'go', admission_key: 'k1' };
    const send = await api('POST', `/api/v1/sessions/${sessionId}/messages`, message);
    expect(send.status).toBe(429);
    expect(send.retryAfter).toBe('60');
    const transcript = await api('GET', `/api/v1/sessions/${sessionId}/messages`);
    expect(transcript.json.messages).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(childrenOf(pid)).toEqual(agent);

    // Deleting the first task stops its agent; the place is free again.
    const firstTask = (first.json.task as { id: string }).id;
    expect((await api('DELETE', `/api/v1/tasks/${firstTask}`)).status).toBeLessThan(300);
    await eventually(() => childrenOf(pid).length === 0, 20_000);
    // Admitted, no longer refused: sent (200), or queued (202) when the agent's start takes
    // longer than the admission waits for it, as it can on a loaded machine.
    const admitted = await api('POST', `/api/v1/sessions/${sessionId}/messages`, message);
    expect([200, 202]).toContain(admitted.status);
    await eventually(() => childrenOf(pid).length === 1, 20_000);
  }, 120_000);
});
