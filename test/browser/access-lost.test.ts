/**
 * A person removed from a workspace while their phone shows one of its
 * sessions, with a question waiting. Once the page knows (their socket
 * closed for no workspace left, or told their access changed, or an answer
 * refused as unknown), it offers nothing that cannot work (no options, no
 * composer, no Stop or Delete) and says only that the session is no longer
 * available to them: never that the conversation moved on, while the
 * question still waits for everyone else. Their open inbox drops what waits
 * in the workspace they lost as the admin's page removes them, without a
 * reload, and keeps what waits in the one they keep. Real server, real demo
 * agent, Chromium.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  askingTask,
  type CreatedTask,
  launchChromium,
  signedInPage,
  startWorld,
  type World,
  EVENTS_SOCKET,
} from './support/harness.js';
import { option, WAIT } from './support/clarification-pages.js';

const PHONE = { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true };

describe('a session its person lost access to, in the web app', () => {
  let world: World;
  let browser: Browser;
  let workspaceId: string;
  let workspaceName: string;

  beforeAll(async () => {
    [world, browser] = await Promise.all([startWorld(), launchChromium()]);
    const spaces = await api<{ workspaces: { id: string; name: string }[] }>(
      world,
      'GET',
      '/api/v1/workspaces',
    );
    workspaceId = spaces.workspaces[0]?.id ?? '';
    workspaceName = spaces.workspaces[0]?.name ?? '';
  }, 120_000);

  afterAll(async () => {
    await browser.close();
    await world.close();
  });

  async function member(name: string): Promise<string> {
    const made = await api<{ user: { id: string } }>(world, 'POST', '/api/v1/users', { name });
    await api(world, 'POST', `/api/v1/workspaces/${workspaceId}/members`, {
      user_id: made.user.id,
    });
    return made.user.id;
  }

  /** Their phone on a session of the workspace whose question waits. */
  async function onAskingSession(userId: string, title: string, page?: Page) {
    const created = await askingTask(world, title, '/ask');
    const phone = page ?? (await signedInPage(world, browser, userId, PHONE));
    await phone.goto(`${world.origin}/sessions/${created.session.id}`);
    await phone.getByTestId('clarification-overlay').waitFor(WAIT);
    await phone.getByTestId('session-stop').waitFor(WAIT);
    return { phone, sessionId: created.session.id };
  }

  async function removeFromWorkspace(userId: string): Promise<void> {
    await api(world, 'DELETE', `/api/v1/workspaces/${workspaceId}/members/${userId}`);
  }

  async function saysOnlyLost(phone: Page): Promise<void> {
    const lost = phone.locator('[data-testid="session-missing"][data-presence="access_lost"]');
    await lost.waitFor(WAIT);
    await expect(lost.getByRole('status').textContent()).resolves.toBe(
      'This session is no longer available to you, so nothing in it can be answered or sent from here.',
    );
    for (const testId of [
      'clarification-overlay',
      'composer-input',
      'session-stop',
      'session-delete',
      'task-delete',
      'late-answer-open',
    ]) {
      expect(await phone.getByTestId(testId).count(), testId).toBe(0);
    }
    await expect(phone.locator('main').textContent()).resolves.not.toContain('moved on');
  }

  async function stillPending(sessionId: string): Promise<void> {
    const pending = await api<{ bundles: { session_id: string }[] }>(
      world,
      'GET',
      '/api/v1/pending',
    );
    expect(pending.bundles.some((bundle) => bundle.session_id === sessionId)).toBe(true);
  }

  it('offers nothing once they are in no workspace, and says the session is lost to them', async () => {
    const userId = await member('Rafa');
    const { phone, sessionId } = await onAskingSession(userId, 'Rafa’s view');
    await removeFromWorkspace(userId);
    await saysOnlyLost(phone);
    await stillPending(sessionId);
    await phone.context().close();
  });

  it('offers nothing once told their access changed while they keep another workspace', async () => {
    const userId = await member('Sami');
    const { workspace } = await api<{ workspace: { id: string } }>(
      world,
      'POST',
      '/api/v1/workspaces',
      { name: 'Elsewhere' },
    );
    await api(world, 'POST', `/api/v1/workspaces/${workspace.id}/members`, { user_id: userId });
    const { phone, sessionId } = await onAskingSession(userId, 'Sami’s view');
    await removeFromWorkspace(userId);
    await saysOnlyLost(phone);
    await stillPending(sessionId);

    // Added back: a reload of what they see shows the session again.
    await api(world, 'POST', `/api/v1/workspaces/${workspaceId}/members`, { user_id: userId });
    await phone.getByTestId('clarification-overlay').waitFor(WAIT);
    await phone.context().close();
  });

  it('says the same after an answer refused as unknown, before any word of the removal', async () => {
    const userId = await member('Toni');
    const page = await signedInPage(world, browser, userId, PHONE);
    // Nothing the server says after the removal reaches this page: only its answer learns of it.
    let deaf = false;
    await page.routeWebSocket(EVENTS_SOCKET, (socket) => {
      const server = socket.connectToServer();
      socket.onMessage((message) => {
        server.send(message);
      });
      server.onMessage((message) => {
        if (!deaf) socket.send(message);
      });
      server.onClose((code, reason) => {
        if (!deaf) void socket.close({ code, reason });
      });
    });
    const { phone, sessionId } = await onAskingSession(userId, 'Toni’s view', page);
    deaf = true;
    await removeFromWorkspace(userId);
    await phone.waitForTimeout(1000);
    expect(await phone.getByTestId('clarification-overlay').count()).toBe(1);

    const refused = phone.waitForResponse(
      (response) => response.url().endsWith('/respond') && response.status() === 404,
    );
    await option(phone, 'Generated').tap();
    await phone.getByTestId('send-now').tap();
    await refused;
    await saysOnlyLost(phone);
    await stillPending(sessionId);
    await phone.context().close();
  });

  it('drops what waits in the lost workspace from their open inbox, keeping the rest', async () => {
    const userId = await member('Uma');
    const { workspace } = await api<{ workspace: { id: string } }>(
      world,
      'POST',
      '/api/v1/workspaces',
      { name: 'Kept by Uma' },
    );
    await api(world, 'POST', `/api/v1/workspaces/${workspace.id}/members`, { user_id: userId });
    const lostQuestion = await askingTask(world, 'Uma’s lost question', '/ask');
    const lostConsent = await api<CreatedTask>(world, 'POST', '/api/v1/tasks', {
      title: 'Uma’s lost consent',
      prompt: '/permission',
    });
    const kept = await api<CreatedTask>(world, 'POST', '/api/v1/tasks', {
      title: 'Uma’s kept question',
      prompt: '/ask',
      workspace_id: workspace.id,
    });
    const inbox = await signedInPage(world, browser, userId);
    const listed = (sessionId: string) => inbox.locator(`main [data-session-id="${sessionId}"]`);
    await inbox.getByTestId('inbox-item').and(listed(lostQuestion.session.id)).waitFor(WAIT);
    await inbox.getByTestId('inbox-user-input').and(listed(lostConsent.session.id)).waitFor(WAIT);
    await inbox.getByTestId('inbox-item').and(listed(kept.session.id)).waitFor(WAIT);

    const admin = await signedInPage(world, browser);
    await admin.getByTestId('people-link').click();
    const row = admin
      .getByTestId('workspace')
      .filter({ has: admin.getByRole('heading', { name: workspaceName, exact: true }) })
      .getByTestId('member')
      .filter({ hasText: 'Uma' });
    await row.getByRole('button', { name: `Remove Uma from ${workspaceName}` }).click();
    await row
      .getByTestId('decision-confirm')
      .getByRole('button', { name: 'Remove Uma', exact: true })
      .click();
    await row.waitFor({ state: 'detached', ...WAIT });

    await listed(lostQuestion.session.id)
      .first()
      .waitFor({ state: 'detached', ...WAIT });
    await listed(lostConsent.session.id)
      .first()
      .waitFor({ state: 'detached', ...WAIT });
    await expect(inbox.locator('main').textContent()).resolves.not.toContain('Uma’s lost');
    await expect(listed(kept.session.id).count()).resolves.toBeGreaterThan(0);
    await stillPending(lostQuestion.session.id);
    await inbox.context().close();
    await admin.context().close();
  }, 120_000);
});
