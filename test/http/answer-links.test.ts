/**
 * Single-use answer links on the whole server, on both dialects: opening a
 * link (the page's GET and `view`) changes nothing; `use` decides once, as the
 * link's user on surface `link`, through the same services a person uses, and
 * the asking agent gets exactly that answer; later uses (this link or a
 * sibling) show the winner, whoever it was; an expired link says so; a link
 * is worth nothing to anyone who may not see the item when it is used, and
 * hostile secrets get a 4xx with nothing changed.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { issueToken } from '../../src/auth/tokens.js';
import { mintAnswerLinks, type AnswerLinkDeps } from '../../src/turns/index.js';
import type { AnswerLinkView, NoticeKind } from '../../src/wire/index.js';
import { browserSignIn, sendTo } from '../support/browser-sign-in.js';
import { DRIVERS } from '../support/databases.js';
import { eventually } from '../support/clarification-harness.js';
import { startInProcessServer, type InProcessServer } from '../support/in-process-server.js';

const ADMIN_TOKEN = 'answer-links-admin-token-0123456789';

const ONE_QUESTION = {
  questions: [
    {
      prompt: 'Which parser should we use?',
      title: 'Parser',
      options: [
        { label: 'Hand-written', description: 'Recursive descent' },
        { label: 'Generated', description: 'From a grammar file' },
      ],
    },
  ],
};

interface LinkReply {
  status: number;
  body: { link?: AnswerLinkView; code?: string };
}

describe.each(DRIVERS)('answer links on %s', (driver) => {
  let s: InProcessServer;
  let clients: Client[];
  let adminId: string;
  let workspaceId: string;

  beforeEach(async () => {
    s = await startInProcessServer(driver, ADMIN_TOKEN);
    clients = [];
    const me = await s.api<{ user: { id: string } }>('GET', '/api/v1/me');
    adminId = me.json.user.id;
    const spaces = await s.api<{ workspaces: { id: string }[] }>('GET', '/api/v1/workspaces');
    workspaceId = spaces.json.workspaces[0]?.id ?? '';
  });

  afterEach(async () => {
    await Promise.allSettled(clients.map((client) => client.close()));
    await s.dispose();
  });

  function deps(maxTtlMs?: number): AnswerLinkDeps {
    return {
      ...s.server.turns,
      origin: () => s.server.url,
      ...(maxTtlMs === undefined ? {} : { maxTtlMs }),
    };
  }

  function mint(kind: NoticeKind, itemId: string, userId = adminId, maxTtlMs?: number) {
    return mintAnswerLinks(deps(maxTtlMs), { userId, kind, itemId });
  }

  function secretOf(url: string): string {
    return new URL(url).hash.slice(1);
  }

  /** A public call: no cookie, no bearer; the secret is the only credential. */
  async function link(
    verb: 'view' | 'use',
    token: unknown,
    init: RequestInit = {},
  ): Promise<LinkReply> {
    const response = await fetch(`${s.server.url}/api/v1/answer-links/${verb}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token }),
      ...init,
    });
    return { status: response.status, body: (await response.json()) as LinkReply['body'] };
  }

  /** An external agent (an MCP client with the admin's token) asks; resolves with its tool result. */
  async function ask(questions: unknown = ONE_QUESTION, name = 'my-claude') {
    const client = new Client({ name, version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${s.server.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } },
      }),
    );
    clients.push(client);
    const before = new Set(await pendingIds());
    const answer = client.callTool(
      { name: 'ask_user_question', arguments: questions as Record<string, unknown> },
      CallToolResultSchema,
    ) as Promise<CallToolResult>;
    // A test that fails early closes the client under a waiting call; that is no second failure.
    answer.catch(() => undefined);
    let pendingId = '';
    await eventually(async () => {
      pendingId = (await pendingIds()).find((id) => !before.has(id)) ?? '';
      return pendingId !== '';
    });
    return { pendingId, answer };
  }

  async function pendingIds(): Promise<string[]> {
    const reply = await s.api<{ bundles: { pending_id: string }[] }>('GET', '/api/v1/pending');
    return reply.json.bundles.map((bundle) => bundle.pending_id);
  }

  async function bundle(pendingId: string) {
    const reply = await s.api<{
      status: string;
      session_id: string;
      response: { responded_by: unknown; answers: unknown; responded_at: string } | null;
    }>('GET', `/api/v1/clarification/${pendingId}`);
    return reply.json;
  }

  /** A call whose reply has no body (204). */
  async function bare(method: string, path: string): Promise<number> {
    const response = await fetch(`${s.server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    await response.arrayBuffer();
    return response.status;
  }

  async function newMember(name: string): Promise<string> {
    const created = await s.api<{ user: { id: string } }>('POST', '/api/v1/users', { name });
    const userId = created.json.user.id;
    const added = await s.api('POST', `/api/v1/workspaces/${workspaceId}/members`, {
      user_id: userId,
      role: 'member',
    });
    expect([200, 201]).toContain(added.status);
    return userId;
  }

  it('opening a link changes nothing; use answers once, as the link’s user, and the agent gets that answer', async () => {
    const { pendingId, answer } = await ask();
    const links = await mint('question', pendingId);
    expect(links.map((entry) => entry.label)).toEqual(['Hand-written', 'Generated']);
    for (const entry of links) {
      expect(entry.url).toMatch(new RegExp(`^${s.server.url}/answer#cla_[A-Za-z0-9_-]{43}$`));
    }
    const [handWritten, generated] = links.map((entry) => secretOf(entry.url));

    // The page itself (the fragment never reaches the server), then view, twice: nothing moves.
    const page = await fetch(links[1]?.url ?? '');
    await page.arrayBuffer();
    for (let i = 0; i < 2; i += 1) {
      const viewed = await link('view', generated);
      expect(viewed.status).toBe(200);
      expect(viewed.body.link).toEqual({
        kind: 'question',
        state: 'open',
        task_title: 'my-claude',
        title: 'Which parser should we use?',
        agent_profile: 'external',
        choice: 'Generated',
        // A question's option has no kind: its label is what it chooses.
        choice_kind: null,
        expires_at: expect.any(String) as unknown,
        decided: null,
        // Whoever holds the link decides as this person: the page says so before Confirm.
        answering_as: { user_id: adminId, name: 'admin' },
        url: `${s.server.url}/sessions/${(await bundle(pendingId)).session_id}`,
      });
    }
    expect(await bundle(pendingId)).toMatchObject({ status: 'pending', response: null });

    const used = await link('use', generated);
    expect(used.status).toBe(200);
    const winner = {
      choice: 'Generated',
      responded_by: { user_id: adminId, name: expect.any(String) as unknown, surface: 'link' },
    };
    expect(used.body.link).toMatchObject({
      state: 'answered',
      choice: 'Generated',
      decided: winner,
      // Decided: who did is the record's (`decided.responded_by`), not the link's.
      answering_as: null,
    });

    // The asking agent gets exactly that answer.
    const result = await answer;
    expect(result.structuredContent).toMatchObject({
      status: 'answered',
      pending_id: pendingId,
      answers: { q1: { selected: [{ id: 'q1_opt2', label: 'Generated' }], custom_text: '' } },
    });
    expect((await bundle(pendingId)).response?.responded_by).toMatchObject({
      user_id: adminId,
      surface: 'link',
    });

    // Reuse, and the sibling link of the other choice, show the winner and change nothing.
    const again = await link('use', generated);
    expect(again).toMatchObject({
      status: 200,
      body: { link: { state: 'answered', decided: winner } },
    });
    const sibling = await link('use', handWritten);
    expect(sibling).toMatchObject({
      status: 200,
      body: { link: { state: 'answered', choice: 'Hand-written', decided: winner } },
    });
    expect((await bundle(pendingId)).response?.answers).toEqual([
      { question_id: 'q1', selected_options: ['q1_opt2'], custom_text: '' },
    ]);
  });

  it('concurrent uses of a link and its sibling decide once; an unspent used link shows the winner', async () => {
    const { pendingId, answer } = await ask();
    const [first, second] = (await mint('question', pendingId)).map((entry) => secretOf(entry.url));
    // All of them see the item open and reach the resolver; its claim lets exactly one win.
    const replies = await Promise.all(
      [first, second, first, second, first].map((secret) => link('use', secret)),
    );
    const decided = replies.map((reply) => reply.body.link?.decided);
    expect(replies.every((reply) => reply.status === 200)).toBe(true);
    expect(new Set(decided.map((entry) => JSON.stringify(entry))).size).toBe(1);
    const result = await answer;
    const winner = decided[0]?.choice;
    expect(result.structuredContent).toMatchObject({
      answers: { q1: { selected: [{ label: winner }] } },
    });
    const respondedAt = (await bundle(pendingId)).response?.responded_at;

    // A crash between the decision and the mark leaves a link unspent: its next use shows the winner.
    await s.server.store.db.updateTable('answer_links').set({ used_at: null }).execute();
    for (const secret of [first, second]) {
      expect((await link('use', secret)).body.link).toMatchObject({
        state: 'answered',
        decided: { choice: winner },
      });
    }
    expect((await bundle(pendingId)).response?.responded_at).toBe(respondedAt);
  });

  it('a web answer first: the link then shows the web winner and decides nothing', async () => {
    const { pendingId, answer } = await ask();
    const [first] = await mint('question', pendingId);
    // Sign in as a browser does, and answer on the web surface.
    const session = await browserSignIn(sendTo(s.server.url), s.server.signInUrl, s.server.url);
    const cookie = `clarion_session=${session ?? ''}`;
    const respond = await fetch(`${s.server.url}/api/v1/clarification/${pendingId}/respond`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie, origin: s.server.url },
      body: JSON.stringify({ answers: [{ question_id: 'q1', selected_options: ['q1_opt2'] }] }),
    });
    expect(respond.status).toBe(200);
    await answer;

    const used = await link('use', secretOf(first?.url ?? ''));
    expect(used).toMatchObject({
      status: 200,
      body: {
        link: {
          state: 'answered',
          choice: 'Hand-written',
          decided: { choice: 'Generated', responded_by: { user_id: adminId, surface: 'web' } },
        },
      },
    });
    expect((await bundle(pendingId)).response?.responded_by).toMatchObject({ surface: 'web' });
  });

  it('answers a consent and an action request through the registry, surface link', async () => {
    const { pendingId, answer } = await ask();
    const sessionId = (await bundle(pendingId)).session_id;
    const taskId = (await s.api<{ task_id: string }>('GET', `/api/v1/clarification/${pendingId}`))
      .json.task_id;
    const registry = s.server.turns.userInputs;
    const consent = registry.request({
      kind: 'consent',
      sessionId,
      taskId,
      profile: 'external',
      toolKey: 'shell',
      command: 'Run npm test',
      title: 'Run npm test',
      options: [
        { option_id: 'allow', label: 'Allow once', kind: 'allow_once' },
        { option_id: 'deny', label: 'Reject', kind: 'reject_once' },
      ],
    });
    if (!consent.ok) throw new Error('consent refused');
    // A consent opens once its "Always allow" rule lookup has answered.
    await eventually(() => registry.get(consent.id)?.status === 'awaiting');
    const consentLinks = await mint('consent', consent.id);
    expect(consentLinks.map((entry) => entry.label)).toEqual(['Allow once', 'Reject']);
    const allow = secretOf(consentLinks[0]?.url ?? '');
    const viewed = await link('view', allow);
    expect(viewed.body.link).toMatchObject({
      kind: 'consent',
      state: 'open',
      title: 'Run npm test',
      choice: 'Allow once',
      task_title: 'my-claude',
    });
    // The link expires with the request's deadline.
    expect(viewed.body.link?.expires_at?.slice(0, 23)).toBe(
      registry.get(consent.id)?.deadline_at?.slice(0, 23),
    );
    expect(registry.get(consent.id)?.status).toBe('awaiting');

    const used = await link('use', allow);
    expect(used.body.link).toMatchObject({
      state: 'answered',
      decided: { choice: 'Allow once', responded_by: { user_id: adminId, surface: 'link' } },
    });
    await expect(consent.outcome).resolves.toMatchObject({ kind: 'selected', option_id: 'allow' });
    const reject = await link('use', secretOf(consentLinks[1]?.url ?? ''));
    expect(reject.body.link).toMatchObject({
      state: 'answered',
      decided: { choice: 'Allow once' },
    });

    const action = registry.request({
      kind: 'action',
      sessionId,
      taskId,
      title: 'Connect the database',
      instructions: 'Add the key in the console.',
    });
    if (!action.ok) throw new Error('action refused');
    // A request opens to people once its copy for recovery is kept.
    await eventually(() => registry.get(action.id)?.status === 'awaiting');
    const actionLinks = await mint('action', action.id);
    expect(actionLinks.map((entry) => entry.label)).toEqual(['Done', 'Skip']);
    const skipped = await link('use', secretOf(actionLinks[1]?.url ?? ''));
    expect(skipped.body.link).toMatchObject({
      kind: 'action',
      state: 'answered',
      decided: { choice: 'Skip', responded_by: { surface: 'link' } },
    });
    await expect(action.outcome).resolves.toEqual({ kind: 'decided', decision: 'skip' });
    expect(registry.get(action.id)?.responded_by).toMatchObject({ surface: 'link' });

    // The question was never touched by any of this.
    expect(await bundle(pendingId)).toMatchObject({ status: 'pending' });
    await link('use', secretOf((await mint('question', pendingId))[0]?.url ?? ''));
    await answer;
  });

  it('a consent link says what the choice does, and the record says an "always" rule was set', async () => {
    const { pendingId, answer } = await ask();
    const { session_id: sessionId, task_id: taskId } = (
      await s.api<{ session_id: string; task_id: string }>(
        'GET',
        `/api/v1/clarification/${pendingId}`,
      )
    ).json;
    const registry = s.server.turns.userInputs;
    // The agent names its options; this one calls its "always allow" a Reject.
    const consent = registry.request({
      kind: 'consent',
      sessionId,
      taskId,
      profile: 'external',
      toolKey: 'liar-tool',
      command: 'Run the liar tool',
      title: 'Run the liar tool',
      options: [
        { option_id: 'once', label: 'Allow once', kind: 'allow_once' },
        { option_id: 'always', label: 'Reject (do not run)', kind: 'allow_always' },
        { option_id: 'no', label: 'Reject', kind: 'reject_once' },
      ],
    });
    if (!consent.ok) throw new Error('consent refused');
    await eventually(() => registry.get(consent.id)?.status === 'awaiting');
    const minted = await mint('consent', consent.id);
    expect(minted.map(({ label, kind }) => ({ label, kind }))).toEqual([
      { label: 'Allow once', kind: 'allow_once' },
      { label: 'Reject (do not run)', kind: 'allow_always' },
      { label: 'Reject', kind: 'reject_once' },
    ]);
    const liar = secretOf(minted[1]?.url ?? '');
    expect((await link('view', liar)).body.link).toMatchObject({
      choice: 'Reject (do not run)',
      choice_kind: 'allow_always',
    });
    expect((await link('use', liar)).body.link).toMatchObject({
      state: 'answered',
      decided: { choice: 'Reject (do not run)', choice_kind: 'allow_always' },
    });
    await expect(consent.outcome).resolves.toMatchObject({ option_id: 'always' });

    const log = await s.api<{ decisions: Record<string, unknown>[] }>(
      'GET',
      `/api/v1/decisions?kind=consent&task_id=${taskId}`,
    );
    expect(log.json.decisions).toEqual([
      expect.objectContaining({
        subject: 'Run the liar tool',
        outcome: 'allowed',
        detail: 'Always allow (agent’s label: “Reject (do not run)”)',
        option_kind: 'allow_always',
        always_rule: 'set',
        remembered: false,
        responded_by: expect.objectContaining({ surface: 'link' }) as unknown,
      }),
    ]);
    const transcript = await s.api<{ messages: { type: string; content: string }[] }>(
      'GET',
      `/api/v1/sessions/${sessionId}/messages?limit=500`,
    );
    const decided = transcript.json.messages.filter(
      (message) => message.type === 'user_input_decision',
    );
    expect(decided.map((message) => message.content)).toEqual([
      'admin chose "Always allow" (agent\'s label: "Reject (do not run)") and set an "Always allow" rule: Run the liar tool',
    ]);
    const rules = await s.api<{ rules: { tool_key: string; surface: string }[] }>(
      'GET',
      '/api/v1/consent-rules',
    );
    expect(rules.json.rules).toEqual([
      expect.objectContaining({ tool_key: 'liar-tool', surface: 'link' }),
    ]);
    await link('use', secretOf((await mint('question', pendingId))[0]?.url ?? ''));
    await answer;
  });

  it('an expired link says so and decides nothing', async () => {
    const { pendingId, answer } = await ask();
    const [first] = await mint('question', pendingId, adminId, 1);
    const secret = secretOf(first?.url ?? '');
    await new Promise((resolve) => setTimeout(resolve, 20));
    // A link that can no longer decide does not say whose it was.
    expect((await link('view', secret)).body.link).toMatchObject({
      state: 'expired',
      decided: null,
      answering_as: null,
    });
    expect((await link('use', secret)).body.link).toMatchObject({
      state: 'expired',
      decided: null,
      answering_as: null,
    });
    expect(await bundle(pendingId)).toMatchObject({ status: 'pending', response: null });

    // A fresh link still works: expiry is the link's, not the item's.
    const [fresh] = await mint('question', pendingId);
    expect((await link('use', secretOf(fresh?.url ?? ''))).body.link?.state).toBe('answered');
    await answer;
  });

  it('mints only for one-tap items the user can see', async () => {
    const outsider = await s.api<{ user: { id: string } }>('POST', '/api/v1/users', {
      name: 'Outsider',
    });
    const { pendingId, answer } = await ask();
    expect(await mint('question', pendingId, outsider.json.user.id)).toEqual([]);
    expect(await mint('question', pendingId, 'no-such-user')).toEqual([]);
    expect(await mint('form', pendingId)).toEqual([]);
    expect(await mint('consent', pendingId)).toEqual([]);
    expect(await mint('question', 'no-such-bundle')).toEqual([]);

    const multi = await ask(
      {
        questions: [
          {
            prompt: 'Which checks?',
            multi_select: true,
            options: [
              { label: 'Lint', description: 'ESLint' },
              { label: 'Types', description: 'tsc' },
            ],
          },
        ],
      },
      'multi-tool',
    );
    expect(await mint('question', multi.pendingId)).toEqual([]);
    const two = await ask(
      {
        questions: [
          {
            prompt: 'First?',
            options: [
              { label: 'A', description: 'a' },
              { label: 'B', description: 'b' },
            ],
          },
          {
            prompt: 'Second?',
            options: [
              { label: 'C', description: 'c' },
              { label: 'D', description: 'd' },
            ],
          },
        ],
      },
      'two-tool',
    );
    expect(await mint('question', two.pendingId)).toEqual([]);

    // A decided item gets no links either.
    await link('use', secretOf((await mint('question', pendingId))[0]?.url ?? ''));
    await answer;
    expect(await mint('question', pendingId)).toEqual([]);
    for (const id of [multi.pendingId, two.pendingId]) {
      await s.api('POST', `/api/v1/clarification/${id}/respond`, { rejected: true });
    }
    await Promise.all([multi.answer, two.answer]);
  });

  it('a link is useless to a user who lost access to the item, or was deleted', async () => {
    const bea = await newMember('Bea');
    const { pendingId, answer } = await ask();
    const [removedLink] = await mint('question', pendingId, bea);
    const [deletedLink] = await mint('question', pendingId, bea);
    // Bea's link answers as Bea, whoever opens it.
    expect((await link('view', secretOf(removedLink?.url ?? ''))).body.link).toMatchObject({
      state: 'open',
      answering_as: { user_id: bea, name: 'Bea' },
    });

    expect(await bare('DELETE', `/api/v1/workspaces/${workspaceId}/members/${bea}`)).toBe(204);
    for (const verb of ['view', 'use'] as const) {
      expect(await link(verb, secretOf(removedLink?.url ?? ''))).toEqual({
        status: 404,
        body: { code: 'not_found', error: 'answer link not found' },
      });
    }
    expect(await bundle(pendingId)).toMatchObject({ status: 'pending', response: null });

    // Back in the workspace, then deleted: the links went with the account.
    await s.api('POST', `/api/v1/workspaces/${workspaceId}/members`, {
      user_id: bea,
      role: 'member',
    });
    expect((await link('view', secretOf(deletedLink?.url ?? ''))).body.link?.state).toBe('open');
    expect(await bare('DELETE', `/api/v1/users/${bea}`)).toBe(204);
    expect((await link('use', secretOf(deletedLink?.url ?? ''))).status).toBe(404);
    expect(await bundle(pendingId)).toMatchObject({ status: 'pending', response: null });

    // A link decides its own item only.
    const other = await ask(ONE_QUESTION, 'other-tool');
    const [otherLink] = await mint('question', other.pendingId);
    expect((await link('use', secretOf(otherLink?.url ?? ''))).body.link?.state).toBe('answered');
    expect(await bundle(pendingId)).toMatchObject({ status: 'pending', response: null });
    await other.answer;
    await s.api('POST', `/api/v1/clarification/${pendingId}/respond`, { rejected: true });
    await answer;
  });

  it('refuses hostile secrets and bodies with a 4xx and changes nothing', async () => {
    const { pendingId, answer } = await ask();
    const [first] = await mint('question', pendingId);
    const secret = secretOf(first?.url ?? '');
    const notFound = { status: 404, body: { code: 'not_found', error: 'answer link not found' } };
    for (const verb of ['view', 'use'] as const) {
      expect(await link(verb, 'cla_garbage')).toEqual(notFound);
      expect(await link(verb, `${secret}x`)).toEqual(notFound);
      expect(await link(verb, secret.toUpperCase())).toEqual(notFound);
      // An API token is no answer link.
      expect(await link(verb, ADMIN_TOKEN)).toEqual(notFound);
      expect((await link(verb, '')).status).toBe(400);
      expect((await link(verb, 'x'.repeat(257))).status).toBe(400);
      expect((await link(verb, `cla_${'a'.repeat(5000)}`)).status).toBe(400);
      expect((await link(verb, 42)).status).toBe(400);
      expect((await link(verb, secret, { body: '{"token":' })).status).toBe(400);
      expect(
        (await link(verb, secret, { body: JSON.stringify({ token: secret, choice: 'other' }) }))
          .status,
      ).toBe(400);
      expect((await link(verb, secret, { headers: { 'content-type': 'text/plain' } })).status).toBe(
        415,
      );
      expect(
        (await link(verb, secret, { body: JSON.stringify({ token: 'x'.repeat(2_000_000) }) }))
          .status,
      ).toBe(413);
    }
    expect(await bundle(pendingId)).toMatchObject({ status: 'pending', response: null });

    // An agent's token is refused here as on every write, even with a good secret.
    const agent = await issueToken(s.server.store, {
      kind: 'agent',
      userId: adminId,
      sessionId: (await bundle(pendingId)).session_id,
    });
    expect(
      await link('use', secret, {
        headers: { 'content-type': 'application/json', authorization: `Bearer ${agent.secret}` },
      }),
    ).toMatchObject({ status: 403, body: { code: 'person_required' } });
    expect(await bundle(pendingId)).toMatchObject({ status: 'pending', response: null });
    // A stale session cookie neither helps nor hinders: the secret is the credential.
    const stale = await link('view', secret, {
      headers: { 'content-type': 'application/json', cookie: 'clarion_session=clr_stale' },
    });
    expect(stale.body.link?.state).toBe('open');
    // GET is no way to use a link.
    const get = await fetch(`${s.server.url}/api/v1/answer-links/use?token=${secret}`);
    expect(get.status).toBe(404);
    expect(await bundle(pendingId)).toMatchObject({ status: 'pending', response: null });
    await link('use', secret);
    await answer;
  });
});
