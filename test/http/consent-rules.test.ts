/**
 * Issue 15: "Always allow" rules kept per person, agent profile and tool, on
 * SQLite and PostgreSQL, through the demo agent's real permission request.
 * A person lists and revokes their own rules, an admin everyone's; someone
 * else's rule is 404 to a person; a revoked rule makes the next request ask.
 * A rule answers only in its own person's tasks: another member of the same
 * workspace, who cannot see it, is asked. A rule whose person is removed
 * from the workspace as it answers answers nothing (and their task's agent
 * stops with the removal).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { issueToken } from '../../src/auth/tokens.js';
import { getSession, getWorkspaceMember } from '../../src/store/index.js';
import { armPause } from '../../src/support/failpoints.js';
import type { UserInputView } from '../../src/user-input/index.js';
import type { ConsentRuleRevocationView, ConsentRuleView } from '../../src/wire/index.js';
import { eventually } from '../support/clarification-harness.js';
import { DRIVERS } from '../support/databases.js';
import {
  bearerApi,
  startInProcessServer,
  type ApiCall,
  type InProcessServer,
} from '../support/in-process-server.js';

const TOKEN = 'consent-rules-admin-token-0123456';
/** A paused answer goes on by itself after this, should the test never release it. */
const PAUSE_BOUND_MS = 30_000;

describe.each(DRIVERS)('"Always allow" rules over REST on %s', (driver) => {
  let running: InProcessServer;
  let admin: ApiCall;
  let bob: ApiCall;
  let bobId: string;
  let bobToken: string;

  beforeEach(async () => {
    running = await startInProcessServer(driver, TOKEN);
    admin = running.api;
    const created = await admin<{ user: { id: string }; token: string }>('POST', '/api/v1/users', {
      name: 'Bob',
    });
    bobId = created.json.user.id;
    bobToken = created.json.token;
    bob = bearerApi(running.server.url, bobToken);
  });

  afterEach(async () => {
    await running.dispose();
  });

  async function startPermissionTask(as: ApiCall): Promise<string> {
    const created = await as<{ session: { id: string } }>('POST', '/api/v1/tasks', {
      title: 'Permission',
      prompt: '/permission',
    });
    expect(created.status).toBe(201);
    return created.json.session.id;
  }

  async function agentText(sessionId: string): Promise<string> {
    const page = await admin<{ messages: { author: string; type: string; content: string }[] }>(
      'GET',
      `/api/v1/sessions/${sessionId}/messages?limit=500`,
    );
    return page.json.messages
      .filter((message) => message.author === 'agent' && message.type === 'message')
      .map((message) => message.content)
      .join('\n');
  }

  async function consentOf(as: ApiCall, sessionId: string): Promise<UserInputView> {
    let found: UserInputView | undefined;
    await eventually(async () => {
      const list = await as<{ requests: UserInputView[] }>('GET', '/api/v1/user-inputs');
      found = list.json.requests.find((request) => request.session_id === sessionId);
      return found !== undefined;
    }, 15_000);
    if (!found) throw new Error('no consent request');
    return found;
  }

  async function allowAlways(as: ApiCall): Promise<void> {
    const sessionId = await startPermissionTask(as);
    const request = await consentOf(as, sessionId);
    const chosen = await as('POST', `/api/v1/user-inputs/${request.id}/respond`, {
      option_id: 'allow-always',
    });
    expect(chosen.status).toBe(200);
    await eventually(async () => (await agentText(sessionId)).includes('allow-always'), 15_000);
  }

  /** DELETE answers 204 without a body: the status, and the body's code when there is one. */
  async function revoke(token: string, id: string | undefined) {
    const response = await fetch(`${running.server.url}/api/v1/consent-rules/${id ?? ''}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    });
    const text = await response.text();
    const body = text === '' ? undefined : (JSON.parse(text) as { code: string });
    return { status: response.status, code: body?.code };
  }

  const rulesOf = async (as: ApiCall) =>
    (await as<{ rules: ConsentRuleView[] }>('GET', '/api/v1/consent-rules')).json.rules;

  it('lists a person’s rule for them and an admin; only they or an admin revoke it', async () => {
    const workspaces = await admin<{ workspaces: { id: string }[] }>('GET', '/api/v1/workspaces');
    const workspaceId = workspaces.json.workspaces[0]?.id ?? '';
    const member = await admin('POST', `/api/v1/workspaces/${workspaceId}/members`, {
      user_id: bobId,
    });
    expect(member.status).toBe(201);

    expect(await rulesOf(bob)).toEqual([]);
    await allowAlways(bob);
    const [bobsRule] = await rulesOf(bob);
    expect(bobsRule).toMatchObject({
      agent_profile: 'demo',
      set_by: { user_id: bobId, name: 'Bob' },
      surface: 'rest',
    });
    expect(typeof bobsRule?.tool_key).toBe('string');
    // An admin sees everyone's rules.
    expect((await rulesOf(admin)).map((rule) => rule.id)).toEqual([bobsRule?.id]);

    // Bob's rule is his alone: the admin's own task in the workspace they share still asks.
    const asked = await startPermissionTask(admin);
    expect(await consentOf(admin, asked)).toMatchObject({ kind: 'consent', status: 'awaiting' });

    // The admin's own "always" next to Bob's: Bob neither sees nor revokes it.
    expect(await revoke(bobToken, bobsRule?.id)).toEqual({ status: 204, code: undefined });
    await allowAlways(admin);
    const [adminsRule] = await rulesOf(admin);
    expect(adminsRule?.set_by.name).not.toBe('Bob');
    expect(await rulesOf(bob)).toEqual([]);
    expect(await revoke(bobToken, adminsRule?.id)).toEqual({ status: 404, code: 'not_found' });
    expect((await rulesOf(admin)).map((rule) => rule.id)).toEqual([adminsRule?.id]);
    expect((await revoke(TOKEN, 'no-such-rule')).status).toBe(404);
    expect((await revoke(TOKEN, '%00')).status).toBe(404);
  });

  const listOf = async (as: ApiCall) =>
    (
      await as<{ rules: ConsentRuleView[]; revoked: ConsentRuleRevocationView[] }>(
        'GET',
        '/api/v1/consent-rules',
      )
    ).json;

  it('a revoke records who revoked the rule, where and when, listed to its person', async () => {
    const workspaces = await admin<{ workspaces: { id: string }[] }>('GET', '/api/v1/workspaces');
    const workspaceId = workspaces.json.workspaces[0]?.id ?? '';
    await admin('POST', `/api/v1/workspaces/${workspaceId}/members`, { user_id: bobId });
    const me = await admin<{ user: { id: string; name: string } }>('GET', '/api/v1/me');
    await allowAlways(bob);
    const [rule] = await rulesOf(bob);
    expect((await listOf(bob)).revoked).toEqual([]);

    // Unknown IDs change nothing and record nothing.
    expect((await revoke(TOKEN, 'no-such-rule')).status).toBe(404);
    expect((await revoke(TOKEN, '%00')).status).toBe(404);
    expect((await listOf(admin)).revoked).toEqual([]);

    // The admin revokes Bob's rule: Bob sees it gone, and who took it away, where and when.
    expect((await revoke(TOKEN, rule?.id)).status).toBe(204);
    const listed = await listOf(bob);
    expect(listed.rules).toEqual([]);
    expect(listed.revoked).toEqual([
      {
        ...rule,
        revoked_by: { user_id: me.json.user.id, name: me.json.user.name, surface: 'rest' },
        revoked_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/) as unknown,
      },
    ]);
    expect((await listOf(admin)).revoked.map((revoked) => revoked.id)).toEqual([rule?.id]);
    // A second revoke finds no rule, and records no second revocation.
    expect((await revoke(bobToken, rule?.id)).status).toBe(404);
    expect((await listOf(bob)).revoked).toHaveLength(1);

    // Bob's own revoke of a rule he kept again says it was his, over the API.
    await allowAlways(bob);
    const [again] = await rulesOf(bob);
    expect((await revoke(bobToken, again?.id)).status).toBe(204);
    const [latest] = (await listOf(bob)).revoked;
    expect(latest).toMatchObject({
      id: again?.id,
      revoked_by: { user_id: bobId, name: 'Bob', surface: 'rest' },
    });
  });

  it('a rule revoked while its answer is being recorded answers nothing: a person is asked', async () => {
    await allowAlways(admin);
    const [rule] = await rulesOf(admin);
    // The next consent found the rule; its answer waits here, not yet recorded.
    const pause = armPause('user_input.before_decision_recorded', PAUSE_BOUND_MS);
    try {
      const sessionId = await startPermissionTask(admin);
      await pause.reached;
      expect((await revoke(TOKEN, rule?.id)).status).toBe(204);
      pause.release();
      expect(await consentOf(admin, sessionId)).toMatchObject({
        kind: 'consent',
        status: 'awaiting',
        remembered: false,
      });
      const rows = await admin<{ messages: { type: string }[] }>(
        'GET',
        `/api/v1/sessions/${sessionId}/messages?limit=500`,
      );
      expect(rows.json.messages.filter((row) => row.type === 'user_input_decision')).toEqual([]);
      expect(await agentText(sessionId)).not.toContain('Permission answer');
    } finally {
      pause.release();
    }
  });

  it('a shutdown while a rule’s answer is recorded: the recorded answer is the one given', async () => {
    await allowAlways(admin);
    // The next consent found the rule; its answer waits here, not yet recorded.
    const pause = armPause('user_input.before_decision_recorded', PAUSE_BOUND_MS);
    try {
      const sessionId = await startPermissionTask(admin);
      await pause.reached;
      const registry = running.server.turns.userInputs;
      const stopping = running.stop();
      await eventually(() => {
        const refused = registry.request({} as Parameters<typeof registry.request>[0]);
        return !refused.ok && refused.code === 'shutting_down';
      }, 15_000);
      pause.release();
      // The rule's line is written all the same…
      let requestId: string | undefined;
      await eventually(async () => {
        const rows = await running.server.store.db
          .selectFrom('task_session_messages')
          .select('metadata')
          .where('task_session_id', '=', sessionId)
          .where('type', '=', 'user_input_decision')
          .execute();
        const remembered = rows
          .map((row) => JSON.parse(row.metadata) as Record<string, unknown>)
          .find((metadata) => metadata.remembered === true);
        requestId = remembered?.user_input_request_id as string | undefined;
        return requestId !== undefined;
      }, 15_000);
      // …and is what the agent was answered: the rule's allow, not the shutdown's refusal. The
      // registry settles it once the write's commit is back, a moment after the row is readable.
      await eventually(() => registry.get(requestId ?? '')?.status === 'settled', 15_000);
      expect(registry.get(requestId ?? '')).toMatchObject({
        status: 'settled',
        settled_reason: 'human',
        remembered: true,
      });
      await stopping;
    } finally {
      pause.release();
    }
  });

  it('a Stop while a rule’s answer is recorded: the rule allows nothing, and no row says it did', async () => {
    await allowAlways(admin);
    // The next consent found the rule; its answer waits here, not yet recorded.
    const pause = armPause('user_input.before_decision_recorded', PAUSE_BOUND_MS);
    try {
      const sessionId = await startPermissionTask(admin);
      await pause.reached;
      // The person's Stop cancels the turn, and with it the agent's permission call.
      expect((await admin('POST', `/api/v1/sessions/${sessionId}/cancel`)).status).toBe(202);
      pause.release();
      // Given a moment to take effect (a kept row is readable a moment before it is answered)…
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const rows = await running.server.store.db
        .selectFrom('task_session_messages')
        .select(['type', 'metadata'])
        .where('task_session_id', '=', sessionId)
        .where('type', 'in', ['user_input_decision', 'user_input_decision_unkept'])
        .execute();
      // …no rule's allow stands in the transcript (one kept is superseded, as any refused)…
      expect(rows.filter((row) => row.type === 'user_input_decision')).toEqual([]);
      // …nor was given to the agent: the registry never settled it as the rule's answer.
      for (const row of rows) {
        const { user_input_request_id: id } = JSON.parse(row.metadata) as Record<string, string>;
        expect(running.server.turns.userInputs.get(id ?? '')?.settled_reason).not.toBe('human');
      }
      expect(await agentText(sessionId)).not.toContain('Permission answer');
    } finally {
      pause.release();
    }
  });

  it('a rule whose person left the workspace while its answer is recorded answers nothing', async () => {
    const workspaces = await admin<{ workspaces: { id: string }[] }>('GET', '/api/v1/workspaces');
    const workspaceId = workspaces.json.workspaces[0]?.id ?? '';
    await admin('POST', `/api/v1/workspaces/${workspaceId}/members`, { user_id: bobId });
    await allowAlways(bob);
    const pause = armPause('user_input.before_decision_recorded', PAUSE_BOUND_MS);
    try {
      const sessionId = await startPermissionTask(bob);
      await pause.reached;
      const removing = fetch(
        `${running.server.url}/api/v1/workspaces/${workspaceId}/members/${bobId}`,
        { method: 'DELETE', headers: { authorization: `Bearer ${TOKEN}` } },
      );
      // Committed before the rule's answer goes on. The removal then stops Bob's agent, whose
      // turn's end waits for that answer's record: it is let go before the removal returns.
      const { store } = running.server;
      await eventually(async () => !(await getWorkspaceMember(store, workspaceId, bobId)));
      pause.release();
      expect((await removing).status).toBe(204);
      // Nothing was recorded for the rule, and Bob's task's agent no longer acts for him.
      const rows = await admin<{ messages: { type: string }[] }>(
        'GET',
        `/api/v1/sessions/${sessionId}/messages?limit=500`,
      );
      expect(rows.json.messages.filter((row) => row.type === 'user_input_decision')).toEqual([]);
      expect(await getSession(store, sessionId)).toMatchObject({
        state: 'failed',
        failure_code: 'owner_removed',
      });
    } finally {
      pause.release();
    }
  });

  it('a revoked rule makes the next request ask a person again', async () => {
    await allowAlways(admin);
    const remembered = await startPermissionTask(admin);
    await eventually(
      async () => (await agentText(remembered)).includes('Permission answer'),
      15_000,
    );
    const [rule] = await rulesOf(admin);
    expect((await revoke(TOKEN, rule?.id)).status).toBe(204);
    expect(await rulesOf(admin)).toEqual([]);
    expect((await revoke(TOKEN, rule?.id)).status).toBe(404);

    const asked = await startPermissionTask(admin);
    const request = await consentOf(admin, asked);
    expect(request).toMatchObject({ kind: 'consent', status: 'awaiting' });
  });

  it('a member’s rule answers only their own tasks, naming them; another member is asked', async () => {
    const workspaces = await admin<{ workspaces: { id: string }[] }>('GET', '/api/v1/workspaces');
    const workspaceId = workspaces.json.workspaces[0]?.id ?? '';
    const member = await admin('POST', `/api/v1/workspaces/${workspaceId}/members`, {
      user_id: bobId,
    });
    expect(member.status).toBe(201);
    await allowAlways(admin);
    const me = await admin<{ user: { id: string; name: string } }>('GET', '/api/v1/me');

    // Bob's own task in the shared workspace: the admin's rule, which Bob cannot see, is not his.
    expect(await rulesOf(bob)).toEqual([]);
    const bobs = await startPermissionTask(bob);
    expect(await consentOf(bob, bobs)).toMatchObject({ kind: 'consent', status: 'awaiting' });
    expect(await agentText(bobs)).not.toContain('Permission answer');

    // The admin's next task is answered by the rule, and the row names who set it, and where.
    const remembered = await startPermissionTask(admin);
    await eventually(async () => (await agentText(remembered)).includes('allow-once'), 15_000);
    const rows = await admin<{
      messages: { type: string; metadata: { remembered?: boolean; responded_by?: unknown } }[];
    }>('GET', `/api/v1/sessions/${remembered}/messages?limit=500`);
    const decision = rows.json.messages.find((row) => row.type === 'user_input_decision');
    expect(decision?.metadata).toMatchObject({
      remembered: true,
      responded_by: { user_id: me.json.user.id, name: me.json.user.name, surface: 'rest' },
    });
  });

  it('a rule of someone outside the task’s workspace does not answer its consent', async () => {
    // Bob works only in a workspace of his own, which the admin is not asked about.
    const own = await admin<{ workspace: { id: string } }>('POST', '/api/v1/workspaces', {
      name: 'Bob’s',
    });
    const joined = await admin('POST', `/api/v1/workspaces/${own.json.workspace.id}/members`, {
      user_id: bobId,
    });
    expect(joined.status).toBe(201);
    await allowAlways(bob);
    expect(await rulesOf(bob)).toHaveLength(1);

    const asked = await startPermissionTask(admin);
    expect(await consentOf(admin, asked)).toMatchObject({ kind: 'consent', status: 'awaiting' });
  });

  it('refuses an agent’s token: an agent has no rules and never revokes one', async () => {
    await allowAlways(admin);
    const [rule] = await rulesOf(admin);
    const sessionId = await startPermissionTask(admin);
    const me = await admin<{ user: { id: string } }>('GET', '/api/v1/me');
    const agent = await issueToken(running.server.store, {
      kind: 'agent',
      userId: me.json.user.id,
      sessionId,
    });
    const listed = await bearerApi(running.server.url, agent.secret)(
      'GET',
      '/api/v1/consent-rules',
    );
    expect(listed.status).toBe(403);
    expect((await revoke(agent.secret, rule?.id)).status).toBe(403);
    expect((await rulesOf(admin)).map((kept) => kept.id)).toEqual([rule?.id]);
  });
});
