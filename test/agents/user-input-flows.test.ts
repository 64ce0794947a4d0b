/**
 * Consent and action requests end to end: the demo agent's ACP permission
 * request and its MCP `request_user_action`, answered over REST, with the
 * follow-up admitted as an ordinary message once the agent's turn ends.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ServerOptions } from '../../src/server.js';
import type { UserInputView } from '../../src/user-input/index.js';
import { eventually } from '../support/clarification-harness.js';
import { DRIVERS } from '../support/databases.js';
import { startInProcessServer, type InProcessServer } from '../support/in-process-server.js';

const TOKEN = 'user-input-flows-admin-token-0123';

/** Short enough to wait out in a test, long enough for the agent to ask first. */
const SHORT_DEADLINE_MS = 1_500;

describe.each(DRIVERS)('consent and action through the demo agent on %s', (driver) => {
  let running: InProcessServer | undefined;

  /** Each test starts its own server, so a test can shorten the deadlines. */
  async function start(options: ServerOptions = {}): Promise<void> {
    running = await startInProcessServer(driver, TOKEN, options);
  }

  afterEach(async () => {
    await running?.dispose();
    running = undefined;
  });

  const call = (method: string, path: string, body?: unknown) => {
    if (!running) throw new Error('start() the server first');
    return running.api(method, path, body);
  };

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

  it('asks consent over ACP with what the tool will run; the chosen option reaches the agent; a repeat answer is 409', async () => {
    await start();
    const sessionId = await startTask('/permission');
    const request = await awaitRequest(sessionId, 'consent');
    expect(request.kind === 'consent' && request.details).toEqual([
      { type: 'text', text: 'rm -rf .cache' },
    ]);
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

  it('a Reject’s reason reaches the demo agent as the next message, after the rejected call’s turn', async () => {
    await start();
    const sessionId = await startTask('/permission');
    const request = await awaitRequest(sessionId, 'consent');
    const rejected = await call('POST', `/api/v1/user-inputs/${request.id}/respond`, {
      option_id: 'reject-once',
      reason: 'Clean only the dist folder',
    });
    expect(rejected.status).toBe(200);
    const followUp = `I rejected: ${request.title}. My reason: Clean only the dist folder`;
    await eventually(async () => (await agentText(sessionId)).includes(followUp), 15_000);
    const text = await agentText(sessionId);
    // The turn that asked heard the reject itself; only the next turn brings the words.
    expect(text.indexOf('Permission answer: "reject-once"')).toBeGreaterThanOrEqual(0);
    expect(text.indexOf(`You said: ${followUp}`)).toBeGreaterThan(
      text.indexOf('Permission answer: "reject-once"'),
    );
  });

  it('refuses the agent when the consent deadline passes, distinct from a person rejecting', async () => {
    await start({ userInputDeadlines: { consentMs: SHORT_DEADLINE_MS } });
    const sessionId = await startTask('/permission');
    const request = await awaitRequest(sessionId, 'consent');
    expect(Date.parse(request.deadline_at ?? '') - Date.parse(request.created_at)).toBe(
      SHORT_DEADLINE_MS,
    );
    await eventually(
      async () => (await agentText(sessionId)).includes('The permission request was cancelled.'),
      15_000,
    );
    expect(await agentText(sessionId)).not.toContain('Permission answer');
    const late = await call('POST', `/api/v1/user-inputs/${request.id}/respond`, {
      option_id: 'allow-once',
    });
    expect(late.status).toBe(409);
    const listed = await call('GET', '/api/v1/user-inputs');
    expect((listed.json.requests as UserInputView[]).map((r) => r.id)).not.toContain(request.id);
  });

  it('answers an action nobody decided with "expired" when its deadline passes, and arms nothing', async () => {
    await start({ userInputDeadlines: { actionMs: SHORT_DEADLINE_MS } });
    const sessionId = await startTask('/action');
    const request = await awaitRequest(sessionId, 'action');
    await eventually(async () => (await agentText(sessionId)).includes('"expired"'), 15_000);
    expect(await agentText(sessionId)).toContain('"reason":"timed_out"');
    const late = await call('POST', `/api/v1/user-inputs/${request.id}/respond`, {
      decision: 'done',
    });
    expect(late.status).toBe(409);
    const queue = await call('GET', `/api/v1/sessions/${sessionId}/queue`);
    expect(queue.json.items).toEqual([]);
    const page = await call('GET', `/api/v1/sessions/${sessionId}/messages?limit=500`);
    const userMessages = (page.json.messages as { author: string }[]).filter(
      (message) => message.author === 'user',
    );
    expect(userMessages).toHaveLength(1);
  });

  it('remembers "always" per profile and tool: the next permission is not asked', async () => {
    await start();
    const first = await startTask('/permission');
    const request = await awaitRequest(first, 'consent');
    await call('POST', `/api/v1/user-inputs/${request.id}/respond`, { option_id: 'allow-always' });
    await eventually(async () => (await agentText(first)).includes('"allow-always"'), 15_000);

    const second = await startTask('/permission');
    await eventually(async () => (await agentText(second)).includes('Permission answer'), 15_000);
    // The rule answers with the agent's allow-once: a revoke counts at the next consent.
    expect(await agentText(second)).toContain('"allow-once"');
  });

  it('asks for an action over MCP; Done arms a follow-up that runs once the turn ends, and the decision is kept once', async () => {
    await start();
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
    // Armed, then due, then settled by its follow-up: one decision row, naming the person.
    const log = await call('GET', '/api/v1/decisions?kind=action');
    const kept = (log.json.decisions as { session_id: string; outcome: string }[]).filter(
      (entry) => entry.session_id === sessionId,
    );
    expect(kept).toMatchObject([{ outcome: 'done', responded_by: { surface: 'rest' } }]);
  });

  it('passes a Skip’s reason to the agent and its follow-up; a reason with Done, or too long, is a 400', async () => {
    await start();
    const sessionId = await startTask('/action');
    const request = await awaitRequest(sessionId, 'action');
    const path = `/api/v1/user-inputs/${request.id}/respond`;
    const withDone = await call('POST', path, { decision: 'done', reason: 'because' });
    expect(withDone.status).toBe(400);
    const tooLong = await call('POST', path, { decision: 'skip', reason: '理'.repeat(2001) });
    expect(tooLong.status).toBe(400);
    expect((await call('GET', '/api/v1/user-inputs')).json.requests).toContainEqual(
      expect.objectContaining({ id: request.id, status: 'awaiting' }),
    );

    const skipped = await call('POST', path, { decision: 'skip', reason: '  Kein Zugang heute  ' });
    expect(skipped.status).toBe(200);
    expect(skipped.json.request).toMatchObject({
      decision: 'skip',
      follow_up_text:
        'I skipped: Connect the staging database. Continue without it. My reason: Kein Zugang heute',
    });
    await eventually(async () => (await agentText(sessionId)).includes('"skipped"'), 15_000);
    expect(await agentText(sessionId)).toContain('"reason":"Kein Zugang heute"');
    await eventually(
      async () => (await agentText(sessionId)).includes('My reason: Kein Zugang heute'),
      15_000,
    );
  });
});
