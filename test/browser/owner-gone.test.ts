/**
 * A person is deleted, or removed from the workspace, while the demo agent
 * acting for them waits on a question. An admin who opens that session reads
 * why it ended: the question expired because its person was deleted or
 * removed (not "timed out"), no note of the stop's exit, and the failure
 * says so, translated. A deleted person's session offers no Restart (a
 * restart could never run an agent for nobody); a removed person's keeps it,
 * and a Restart while they are still out says why it was refused. Real
 * server, real demo agent, Chromium.
 */
import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, api, type CreatedTask, signedInPage, useWorld } from './support/harness.js';
import { until, WAIT } from './support/clarification-pages.js';

describe('a session whose person was deleted or removed, in the web app', () => {
  const suite = useWorld();

  /** Bea's task, its agent asking; then Bea is gone by `leave`, and its turn has ended. */
  async function beasSessionAfter(leave: 'deleted' | 'removed'): Promise<string> {
    const { world } = suite;
    const spaces = await api<{ workspaces: { id: string }[] }>(world, 'GET', '/api/v1/workspaces');
    const workspaceId = spaces.workspaces[0]?.id ?? '';
    const made = await api<{ user: { id: string }; token: string }>(
      world,
      'POST',
      '/api/v1/users',
      {
        name: 'Bea',
      },
    );
    await api(world, 'POST', `/api/v1/workspaces/${workspaceId}/members`, {
      user_id: made.user.id,
    });
    const started = await fetch(`${world.origin}/api/v1/tasks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${made.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Bea’s task', prompt: '/ask', workspace_id: workspaceId }),
    });
    expect(started.status).toBe(201);
    const { session } = (await started.json()) as CreatedTask;
    await until(
      () => api<{ bundles: { session_id: string }[] }>(world, 'GET', '/api/v1/pending'),
      (pending) => pending.bundles.some((bundle) => bundle.session_id === session.id),
    );
    const gone = await fetch(
      leave === 'deleted'
        ? `${world.origin}/api/v1/users/${made.user.id}`
        : `${world.origin}/api/v1/workspaces/${workspaceId}/members/${made.user.id}`,
      { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } },
    );
    expect(gone.status).toBe(204);
    // The stop of its agent ended the turn: whatever that wrote is written.
    await until(
      () =>
        world.clarion.store.db
          .selectFrom('task_session_turns')
          .select('completed_at')
          .where('task_session_id', '=', session.id)
          .execute(),
      (turns) => turns.every((turn) => turn.completed_at !== null),
    );
    return session.id;
  }

  it('deleted: says why its question ended and offers no Restart, message or running call', async () => {
    const { world, browser } = suite;
    const session = { id: await beasSessionAfter('deleted') };
    const page = await signedInPage(world, browser);
    await page.goto(`${world.origin}/sessions/${session.id}`);
    const question = page.locator('[data-testid="question-row"][data-status="expired"]');
    await expect(question.locator('.question-outcome').textContent(WAIT)).resolves.toBe(
      'Expired: the person this agent acted for was deleted',
    );
    await expect(page.getByTestId('session-failure-message').textContent(WAIT)).resolves.toBe(
      'The person this agent acted for was deleted, so it cannot run again. Its open questions expired.',
    );
    await expect(page.getByTestId('session-restart').count()).resolves.toBe(0);
    await expect(page.getByTestId('transcript').textContent()).resolves.not.toContain(
      "The agent's turn failed",
    );
    // It can never run again: no message to it is offered, and the page says why.
    await expect(page.getByTestId('composer-closed').textContent()).resolves.toBe(
      'This session takes no more messages: the person its agent acted for was deleted.',
    );
    await expect(page.getByTestId('composer-input').count()).resolves.toBe(0);
    await expect(question.getByTestId('late-answer-open').count()).resolves.toBe(0);
    // Its ask ended with the turn the stop ended: nothing reads as still running.
    const chips = page.getByTestId('tool-status');
    await expect(chips.count()).resolves.toBeGreaterThan(0);
    for (const chip of await chips.all()) {
      expect(['completed', 'failed', 'stopped']).toContain(await chip.getAttribute('data-status'));
    }
    await page.context().close();
  });

  it('removed: says why its question ended, and why a Restart is refused while they are out', async () => {
    const { world, browser } = suite;
    const sessionId = await beasSessionAfter('removed');
    const page = await signedInPage(world, browser);
    await page.goto(`${world.origin}/sessions/${sessionId}`);
    const question = page.locator('[data-testid="question-row"][data-status="expired"]');
    await expect(question.locator('.question-outcome').textContent(WAIT)).resolves.toBe(
      'Expired: the person this agent acted for was removed from this workspace',
    );
    await expect(page.getByTestId('session-failure-message').textContent(WAIT)).resolves.toBe(
      'The person this agent acted for was removed from this workspace, so it stopped. Its open questions expired. It can be restarted once they are added back.',
    );
    await expect(page.getByTestId('transcript').textContent()).resolves.not.toContain(
      "The agent's turn failed",
    );
    await page.getByTestId('session-restart').click();
    await expect(page.locator('.session-failure .error').textContent(WAIT)).resolves.toBe(
      'The agent was not restarted: the person it acts for is not a member of this workspace; they must be added back first.',
    );
    await page.context().close();
  });
});
