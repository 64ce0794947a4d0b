/**
 * Two people of one workspace each connect their own Claude Code (an agent
 * token each, the same client name), and both agents ask. Without an owner
 * the two inbox items and the session pages look alike, and a tap answers
 * someone else's agent. Each item and the session header say whose agent
 * asks: "Your agent" for the reader's own, the person's name for another's.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, api, signedInPage, type World } from './support/harness.js';
import { useSuite, WAIT } from './support/clarification-pages.js';

interface Pending {
  bundles: { pending_id: string; session_id: string; questions: { prompt: string }[] }[];
}

describe('whose agent asks', () => {
  const suite = useSuite();
  const clients: Client[] = [];
  const calls: Promise<unknown>[] = [];

  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.close()));
    await Promise.allSettled(calls);
  });

  /** An agent token minted by the holder of `bearer`, asking as Claude Code. */
  async function claudeCodeOf(world: World, bearer: string, prompt: string): Promise<void> {
    const minted = await fetch(`${world.clarion.url}/api/v1/tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'my claude code', kind: 'agent' }),
    });
    expect(minted.status).toBe(201);
    const { secret } = (await minted.json()) as { secret: string };
    const client = new Client({ name: 'Claude Code', version: '2.0.0' });
    clients.push(client);
    await client.connect(
      new StreamableHTTPClientTransport(new URL('/mcp', world.clarion.url), {
        requestInit: { headers: { authorization: `Bearer ${secret}` } },
      }),
    );
    const question = {
      title: 'Release',
      prompt,
      options: [
        { label: '2.0.0', description: 'major' },
        { label: '1.5.0', description: 'minor' },
      ],
    };
    const call = client.callTool(
      { name: 'ask_user_question', arguments: { questions: [question] } },
      undefined,
      { timeout: 120_000, resetTimeoutOnProgress: true, onprogress: () => undefined },
    );
    calls.push(call);
  }

  it('names the person whose agent asks, in the inbox and the session header', async () => {
    const { world, browser } = suite;
    const dana = await api<{ user: { id: string }; token: string }>(
      world,
      'POST',
      '/api/v1/users',
      { name: 'Dana' },
    );
    const { workspaces } = await api<{ workspaces: { id: string }[] }>(
      world,
      'GET',
      '/api/v1/workspaces',
    );
    await api(world, 'POST', `/api/v1/workspaces/${workspaces[0]?.id ?? ''}/members`, {
      user_id: dana.user.id,
      role: 'member',
    });
    const admin = await api<{ user: { id: string; name: string } }>(world, 'GET', '/api/v1/me');
    await claudeCodeOf(world, ADMIN_TOKEN, "Admin's agent asks");
    await claudeCodeOf(world, dana.token, "Dana's agent asks");
    let pending: Pending['bundles'] = [];
    await expect
      .poll(async () => {
        pending = (await api<Pending>(world, 'GET', '/api/v1/pending')).bundles;
        return pending.length;
      }, WAIT)
      .toBe(2);
    const adminAsks = pending.find((bundle) => bundle.questions[0]?.prompt.startsWith('Admin'));
    const danaAsks = pending.find((bundle) => bundle.questions[0]?.prompt.startsWith('Dana'));
    if (!adminAsks || !danaAsks) throw new Error('both agents ask');

    const page = await signedInPage(world, browser, dana.user.id);

    const owner = (pendingId: string) =>
      page
        .locator(`[data-testid="inbox-item"][data-pending-id="${pendingId}"]`)
        .getByTestId('task-owner');
    await expect
      .poll(() => owner(adminAsks.pending_id).textContent(), WAIT)
      .toBe(`${admin.user.name}’s agent`);
    await expect.poll(() => owner(danaAsks.pending_id).textContent(), WAIT).toBe('Your agent');

    await page.goto(`${world.origin}/sessions/${adminAsks.session_id}`);
    const header = page.locator('.session-view > header');
    await expect
      .poll(() => header.getByTestId('task-owner').textContent(), WAIT)
      .toBe(`${admin.user.name}’s agent`);
    await page.context().close();
  });
});
