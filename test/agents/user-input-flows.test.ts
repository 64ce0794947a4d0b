/**
 * Consent and action requests end to end: the demo agent's ACP permission
 * request and its MCP `request_user_action`, answered over REST, with the
 * follow-up admitted as an ordinary message once the agent's turn ends.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server.js';
import type { UserInputView } from '../../src/user-input/index.js';
import { eventually } from '../support/clarification-harness.js';
import { DRIVERS } from '../support/databases.js';
import { startInProcessServer, type InProcessServer } from '../support/in-process-server.js';

const TOKEN = 'user-input-flows-admin-token-0123';

describe.each(DRIVERS)('consent and action through the demo agent on %s', (driver) => {
  let running: InProcessServer;
  let server: RunningServer;

  beforeEach(async () => {
    running = await startInProcessServer(driver, TOKEN);
    server = running.server;
  });

  afterEach(async () => {
    await running.dispose();
  });

  async function call(method: string, path: string, body?: unknown) {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  }

  async function startTask(prompt: string): Promise<string> {
    const created = await call('POST', '/api/v1/tasks', { title: prompt, prompt });
    return (created.json.session as { id: string }).id;
  }

  async function agentText(sessionId: string): Promise<string> {
    const page = await call('GET', `/api/v1/sessions/${sessionId}/messages?limit=500`);
    return (page.json.messages as { author: string; type: string; content: string }[])
      .filter((message) => message.author === 'agent' && message.type === 'message')
      .map((message) => message.content)
      .join('\n');
  }

  async function awaitRequest(
    sessionId: string,
    kind: 'consent' | 'action',
  ): Promise<UserInputView> {
    let found: UserInputView | undefined;
    await eventually(async () => {
      const list = await call('GET', '/api/v1/user-inputs');
      found = (list.json.requests as UserInputView[]).find(
        (request) => request.session_id === sessionId && request.kind === kind,
      );
      return found !== undefined;
    }, 15_000);
    if (!found) throw new Error('no request');
    return found;
  }

  it('asks consent over ACP; the chosen option reaches the agent; a repeat answer is 409', async () => {
    const sessionId = await startTask('/permission');
    const request = await awaitRequest(sessionId, 'consent');
    expect(request.kind === 'consent' && request.options.map((o) => o.kind)).toEqual([
      'allow_once',
      'allow_always',
      'reject_once',
    ]);
    const bad = await call('POST', `/api/v1/user-inputs/${request.id}/respond`, {
      option_id: 'no-such-option',
    });
    expect(bad.status).toBe(400);
    const chosen = await call('POST', `/api/v1/user-inputs/${request.id}/respond`, {
      option_id: 'reject-once',
    });
    expect(chosen.status).toBe(200);
    await eventually(async () => (await agentText(sessionId)).includes('"reject-once"'), 15_000);
    const again = await call('POST', `/api/v1/user-inputs/${request.id}/respond`, {
      option_id: 'allow-once',
    });
    expect(again.status).toBe(409);
    const unknown = await call('POST', '/api/v1/user-inputs/nope/respond', { option_id: 'x' });
    expect(unknown.status).toBe(404);
  });

  it('remembers "always" per profile and tool: the next permission is not asked', async () => {
    const first = await startTask('/permission');
    const request = await awaitRequest(first, 'consent');
    await call('POST', `/api/v1/user-inputs/${request.id}/respond`, { option_id: 'allow-always' });
    await eventually(async () => (await agentText(first)).includes('"allow-always"'), 15_000);

    const second = await startTask('/permission');
    await eventually(async () => (await agentText(second)).includes('Permission answer'), 15_000);
    expect(await agentText(second)).toContain('allow-always');
  });

  it('asks for an action over MCP; Done arms a follow-up that runs once the turn ends', async () => {
    const sessionId = await startTask('/action');
    const request = await awaitRequest(sessionId, 'action');
    const done = await call('POST', `/api/v1/user-inputs/${request.id}/respond`, {
      decision: 'done',
    });
    expect(done.status).toBe(200);
    expect(done.json.request).toMatchObject({ status: 'armed', decision: 'done' });
    await eventually(async () => (await agentText(sessionId)).includes('"done"'), 15_000);
    // The follow-up is admitted for the person as an ordinary message; the demo agent echoes it.
    await eventually(
      async () => (await agentText(sessionId)).includes('You said: Continue. I have completed'),
      15_000,
    );
    const settled = await call('GET', '/api/v1/user-inputs');
    expect((settled.json.requests as UserInputView[]).map((r) => r.id)).not.toContain(request.id);
    const page = await call('GET', `/api/v1/sessions/${sessionId}/messages?limit=500`);
    const followUps = (page.json.messages as { author: string; content: string }[]).filter(
      (message) => message.author === 'user' && message.content.startsWith('Continue.'),
    );
    expect(followUps).toHaveLength(1);
  });
});
