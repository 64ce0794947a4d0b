/**
 * A consent's Reject with the person's reason (issue 15): ACP's permission
 * reply has no field for it, so the agent hears the reject at once and the
 * reason as a follow-up message after that turn. Over REST on both databases:
 * the reason is kept in the decision row and the log; a bad reason is a 400
 * that changes nothing; an agent's token is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken } from '../../src/auth/index.js';
import type { UserInputView } from '../../src/user-input/index.js';
import { MAX_ANSWER_TEXT_CODE_POINTS } from '../../src/wire/index.js';
import { eventually } from '../support/clarification-harness.js';
import { DRIVERS } from '../support/databases.js';
import {
  bearerApi,
  startInProcessServer,
  type ApiCall,
  type InProcessServer,
} from '../support/in-process-server.js';
import { waitingItems, type WaitingItems } from '../support/waiting-items.js';

const TOKEN = 'consent-reject-reason-admin-token';

interface Message {
  type: string;
  author: string;
  content: string;
  metadata: Record<string, unknown>;
}

describe.each(DRIVERS)('a Reject with a reason, on %s', (driver) => {
  let running: InProcessServer;
  let admin: ApiCall;
  let items: WaitingItems;
  let me: { id: string; name: string };

  beforeAll(async () => {
    running = await startInProcessServer(driver, TOKEN);
    admin = running.api;
    items = waitingItems(admin);
    me = (await admin<{ user: { id: string; name: string } }>('GET', '/api/v1/me')).json.user;
  });
  afterAll(async () => {
    await running.dispose();
  });

  async function messagesOf(sessionId: string): Promise<Message[]> {
    const page = await admin<{ messages: Message[] }>(
      'GET',
      `/api/v1/sessions/${sessionId}/messages?limit=500`,
    );
    return page.json.messages;
  }

  const respond = (id: string, body: unknown) =>
    admin<{ request?: UserInputView; code?: string; details?: { path: string }[] }>(
      'POST',
      `/api/v1/user-inputs/${id}/respond`,
      body,
    );

  it('keeps the reason and sends it to the agent after the rejected call’s turn', async () => {
    const { sessionId } = await items.startTask('/permission');
    const request = await items.userInputOf(sessionId);
    const reason = 'Nicht heute — run the unit tests only';
    const rejected = await respond(request.id, { option_id: 'reject-once', reason: ` ${reason} ` });
    expect(rejected.status).toBe(200);
    expect(rejected.json.request).toMatchObject({
      kind: 'consent',
      selected_option_id: 'reject-once',
      reason,
      responded_by: { user_id: me.id, name: me.name, surface: 'rest' },
    });
    const followUp = `I rejected: ${request.title}. My reason: ${reason}`;
    let messages: Message[] = [];
    await eventually(async () => {
      messages = await messagesOf(sessionId);
      return messages.some((message) => message.content === `You said: ${followUp}`);
    }, 15_000);
    // The agent heard the reject in its turn, then the reason as the person's next message.
    const contents = messages.map((message) => message.content);
    const heard = contents.indexOf('Permission answer: "reject-once" (Reject).');
    const sent = contents.indexOf(followUp);
    expect(heard).toBeGreaterThanOrEqual(0);
    expect(sent).toBeGreaterThan(heard);
    // Sent for the person who rejected: it names them, like any message of theirs.
    expect(messages[sent]?.metadata).toEqual({
      user_id: me.id,
      user_input_request_id: request.id,
    });
    const decision = messages.filter((message) => message.type === 'user_input_decision');
    expect(decision).toHaveLength(1);
    expect(decision[0]).toMatchObject({
      author: 'user',
      content: `${me.name} chose "Reject once": ${request.title}. Reason: ${reason}`,
      metadata: {
        user_input_request_id: request.id,
        option_kind: 'reject_once',
        reason,
        responded_by: { user_id: me.id, surface: 'rest' },
      },
    });
    const log = await admin<{ decisions: Record<string, unknown>[] }>(
      'GET',
      `/api/v1/decisions?kind=consent&task_id=${request.task_id}`,
    );
    expect(log.json.decisions[0]).toMatchObject({
      outcome: 'rejected',
      detail: `Reject once, “${reason}”`,
    });
  });

  it.each([
    [
      'a reason with an allow option',
      { option_id: 'allow-once', reason: 'why not' },
      'invalid_request',
    ],
    [
      'a reason over the limit',
      { option_id: 'reject-once', reason: 'x'.repeat(MAX_ANSWER_TEXT_CODE_POINTS + 1) },
      'invalid_request',
    ],
    ['a reason that is not text', { option_id: 'reject-once', reason: 42 }, 'invalid_request'],
    ['a reason with a NUL', { option_id: 'reject-once', reason: 'a\u0000b' }, 'invalid_text'],
  ])('refuses %s with a 400, and nothing changes', async (_case, body, code) => {
    const { sessionId } = await items.startTask('/permission');
    const request = await items.userInputOf(sessionId);
    const refused = await respond(request.id, body);
    expect(refused.status).toBe(400);
    expect(refused.json.code).toBe(code);
    expect(JSON.stringify(refused.json.details)).toContain('reason');
    const still = await admin<{ requests: UserInputView[] }>('GET', '/api/v1/user-inputs');
    expect(still.json.requests.find((view) => view.id === request.id)).toMatchObject({
      status: 'awaiting',
      revision: request.revision,
      selected_option_id: null,
    });
    expect((await messagesOf(sessionId)).map((message) => message.type)).not.toContain(
      'user_input_decision',
    );
    // Settled for the next case's clean slate; a plain reject still works.
    expect((await respond(request.id, { option_id: 'reject-once' })).status).toBe(200);
  });

  it('refuses the agent’s own token: 403, and the request still waits', async () => {
    const { sessionId } = await items.startTask('/permission');
    const request = await items.userInputOf(sessionId);
    const issued = await issueToken(running.server.store, {
      kind: 'agent',
      userId: me.id,
      sessionId,
    });
    const agent = bearerApi(running.server.url, issued.secret);
    const refused = await agent('POST', `/api/v1/user-inputs/${request.id}/respond`, {
      option_id: 'reject-once',
      reason: 'the agent would like to decide',
    });
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({ code: 'person_required' });
    expect((await items.userInputOf(sessionId)).status).toBe('awaiting');
    await respond(request.id, { option_id: 'allow-once' });
  });
});
