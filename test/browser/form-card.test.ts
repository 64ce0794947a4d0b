/**
 * A form request's card in Debian's Chromium against a real server, on a
 * phone: the form an agent's elicitation carries (raised through
 * `formRequester`, what the ACP host calls) is rendered from its schema,
 * checked in the browser before anything is sent, and submitted; the agent
 * gets exactly the content, and the card says it was sent.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { formRequester } from '../../src/turns/index.js';
import { DEPLOY_FORM } from './support/deploy-form.js';
import { TestHost } from '../support/test-host.js';
import {
  api,
  ARTIFACTS,
  launchChromium,
  signedInPage,
  startWorld,
  type CreatedTask,
  type World,
} from './support/harness.js';
import { holdFirst, settleRequests } from './support/clarification-pages.js';

const WAIT = { timeout: 30_000 };

const schema = DEPLOY_FORM;

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const found = await probe();
    if (found !== undefined) return found;
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`${what} within 30 s`);
}

describe('the form card in Chromium', () => {
  let world: World;
  let browser: Browser;
  const host = new TestHost();

  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    [world, browser] = await Promise.all([startWorld({ host }), launchChromium()]);
  });

  afterAll(async () => {
    await browser.close();
    await world.close();
  });

  it('fills in and sends a form on a phone: checked first, 44 px targets, the agent gets the content', async () => {
    const created = await api<CreatedTask>(world, 'POST', '/api/v1/tasks', {
      title: 'Deploy with a form',
      prompt: 'deploy',
    });
    const sessionId = created.session.id;
    await until('the first prompt', () =>
      Promise.resolve(host.prompts.some((prompt) => prompt.sessionId === sessionId) || undefined),
    );
    const requestForm = formRequester(
      { store: world.clarion.store },
      () => world.clarion.turns.userInputs,
    );
    const answer = requestForm({
      sessionId,
      turnId: undefined,
      message: 'Where should this be deployed?',
      schema,
      signal: new AbortController().signal,
    });

    const signInContext = await browser.newContext({ locale: 'en-US' });
    const signInPage = await signInContext.newPage();
    await signInPage.goto(world.signInUrl);
    await signInPage.waitForURL(`${world.origin}/`);
    const storageState = await signInContext.storageState();
    await signInContext.close();
    const context = await browser.newContext({
      storageState,
      locale: 'en-US',
      viewport: { width: 390, height: 844 },
      hasTouch: true,
      isMobile: true,
      deviceScaleFactor: 2,
    });
    context.setDefaultTimeout(30_000);
    const page = await context.newPage();
    const sent: unknown[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/respond')) sent.push(request.postDataJSON());
    });
    await page.goto(`${world.origin}/sessions/${sessionId}`);
    const card = page.locator('[data-testid="user-input-card"][data-kind="form"]');
    await card.getByTestId('form-submit').waitFor(WAIT);
    await expect(card.getByTestId('form-message').textContent()).resolves.toBe(
      'Where should this be deployed?',
    );
    await expect(card.locator('.user-input-title').textContent()).resolves.toBe('Deploy settings');

    // Labelled inputs of each kind, with required marks.
    await expect(card.getByLabel('Service name').getAttribute('aria-required')).resolves.toBe(
      'true',
    );
    await expect(card.getByRole('radio', { name: 'Production' }).count()).resolves.toBe(1);
    await expect(card.getByRole('checkbox', { name: 'Americas' }).count()).resolves.toBe(1);
    await expect(card.getByLabel('Replicas').getAttribute('type')).resolves.toBe('number');
    await expect(card.locator('.form-required').count()).resolves.toBe(3);

    // Nothing filled in: the browser names each required field and sends nothing.
    await card.getByTestId('form-submit').tap();
    await expect(card.getByTestId('form-error').allTextContents()).resolves.toEqual([
      'Required.',
      'Required.',
      'Required.',
    ]);
    await card.getByLabel('Service name').fill('ap');
    await card.getByRole('radio', { name: 'Production' }).check();
    await card.getByLabel('Replicas').fill('9');
    await card.getByTestId('form-submit').tap();
    await expect(card.getByTestId('form-error').allTextContents()).resolves.toEqual([
      'At least 3 characters.',
      'At most 5.',
    ]);
    expect(sent).toEqual([]);

    await card.getByLabel('Service name').fill('api');
    await card.getByLabel('Replicas').fill('2');
    await card.getByRole('checkbox', { name: 'Notify the team' }).check();
    await card.getByRole('checkbox', { name: 'Europe' }).check();
    await expect(card.getByTestId('form-error').count()).resolves.toBe(0);

    const targets = card.locator('button, label.form-choice, .form-input');
    const count = await targets.count();
    expect(count).toBe(9); // 2 inputs, 2 radios, 1 yes/no, 2 regions, Send, Decline
    for (let index = 0; index < count; index++) {
      const box = await targets.nth(index).boundingBox();
      expect(box?.height ?? 0, `target ${String(index)}`).toBeGreaterThanOrEqual(44);
    }
    await card.scrollIntoViewIfNeeded();
    await card.screenshot({ path: join(ARTIFACTS, 'phone-form-card.png') });

    await card.getByTestId('form-submit').tap();
    const content = { service: 'api', env: 'prod', replicas: 2, notify: true, regions: ['eu'] };
    await expect(answer).resolves.toEqual({ action: 'accept', content });
    expect(sent).toEqual([{ decision: 'accept', content }]);
    await card.getByTestId('form-sent').waitFor(WAIT);
    await expect(card.getByTestId('user-input-outcome').textContent()).resolves.toContain(
      'You sent the form.',
    );
    await expect(card.getByTestId('form-sent').textContent()).resolves.toContain('Production');
    await context.close();
  });

  it('says "You" only to whoever sent or declined a form: others read the name, on the card and in the transcript', async () => {
    const admin = await api<{ user: { id: string; name: string } }>(world, 'GET', '/api/v1/me');
    const bob = await api<{ user: { id: string } }>(world, 'POST', '/api/v1/users', {
      name: 'Bob',
    });
    const { workspaces } = await api<{ workspaces: { id: string }[] }>(
      world,
      'GET',
      '/api/v1/workspaces',
    );
    await api(world, 'POST', `/api/v1/workspaces/${workspaces[0]?.id ?? ''}/members`, {
      user_id: bob.user.id,
      role: 'member',
    });
    const bobPage = await signedIn(bob.user.id);
    const adminPage = await signedIn(admin.user.id);

    // The admin answers both forms through the API (their own decision, on another surface).
    const cases = [
      {
        answer: { decision: 'accept', content: { service: 'api', env: 'prod', replicas: 2 } },
        verb: 'sent',
      },
      { answer: { decision: 'decline' }, verb: 'declined' },
    ] as const;
    for (const { answer, verb } of cases) {
      const { sessionId, requestId } = await askForm(`Form ${verb} by the admin`);
      const pages = [
        { page: bobPage, who: admin.user.name },
        { page: adminPage, who: 'You' },
      ];
      const cardOn = (page: Page) =>
        page.locator(`[data-testid="user-input-card"][data-request-id="${requestId}"]`);
      // Both have the form open when it is answered elsewhere.
      for (const { page } of pages) {
        await page.goto(`${world.origin}/sessions/${sessionId}`);
        await cardOn(page).getByTestId('form-submit').waitFor(WAIT);
      }
      await api(world, 'POST', `/api/v1/user-inputs/${requestId}/respond`, answer);
      for (const { page, who } of pages) {
        const outcome = cardOn(page).getByTestId('user-input-outcome');
        await outcome.waitFor(WAIT);
        await expect(outcome.locator('p').first().textContent()).resolves.toBe(
          `${who} ${verb} the form.`,
        );
        const row = page.getByTestId('user-input-decision');
        await row.waitFor(WAIT);
        await expect(row.locator('.message-content').textContent()).resolves.toBe(
          `${who} ${verb} the form: Deploy settings`,
        );
      }
    }
    await bobPage.context().close();
    await adminPage.context().close();
  });

  it('keeps the focus in the field Enter sent the form from, and takes no edit or second send while it goes', async () => {
    const { sessionId, requestId } = await askForm('Form sent by keyboard');
    const page = await signedInPage(world, browser, undefined, {
      viewport: { width: 1280, height: 900 },
    });
    const sent: unknown[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/respond')) sent.push(request.postDataJSON());
    });
    await page.goto(`${world.origin}/sessions/${sessionId}`);
    const card = page.locator(`[data-testid="user-input-card"][data-request-id="${requestId}"]`);
    await card.getByRole('radio', { name: 'Production' }).check();
    await card.getByLabel('Replicas').fill('2');
    const service = card.getByLabel('Service name');
    await service.fill('api');
    const held = await holdFirst(page, '**/api/v1/user-inputs/*/respond');
    await page.keyboard.press('Enter');
    await held.arrived;
    await expect
      .poll(() => page.evaluate('document.activeElement?.getAttribute("aria-disabled")'), WAIT)
      .toBe('true');
    const focusedLabel = () => page.evaluate('document.activeElement?.labels?.[0]?.textContent');
    await expect(focusedLabel()).resolves.toBe('Service name *');
    await expect(service.getAttribute('readonly')).resolves.toBe('');
    // Typing changes nothing, and Enter again sends nothing more.
    await page.keyboard.type('x');
    await page.keyboard.press('Enter');
    await card.getByLabel('Notify the team').focus();
    await page.keyboard.press('Space');
    await expect(card.getByLabel('Notify the team').isChecked()).resolves.toBe(false);
    await expect(service.inputValue()).resolves.toBe('api');
    await expect(focusedLabel()).resolves.toBe('Notify the team');
    await settleRequests(page);
    expect(sent).toHaveLength(1);
    held.release();
    await card.getByTestId('form-sent').waitFor(WAIT);
    expect(sent).toMatchObject([
      { decision: 'accept', content: { service: 'api', env: 'prod', replicas: 2, notify: false } },
    ]);
    await page.context().close();
  });

  /** A desktop page signed in as `userId`, through a new one-time sign-in link. */
  const signedIn = (userId: string) => signedInPage(world, browser, userId);

  /** A new task whose agent asks for the deploy form; resolves once the request is listed. */
  async function askForm(title: string): Promise<{ sessionId: string; requestId: string }> {
    const created = await api<CreatedTask>(world, 'POST', '/api/v1/tasks', {
      title,
      prompt: 'deploy',
    });
    const sessionId = created.session.id;
    await until('the first prompt', () =>
      Promise.resolve(host.prompts.some((prompt) => prompt.sessionId === sessionId) || undefined),
    );
    void formRequester(
      { store: world.clarion.store },
      () => world.clarion.turns.userInputs,
    )({
      sessionId,
      turnId: undefined,
      message: 'Where should this be deployed?',
      schema,
      signal: new AbortController().signal,
    });
    const requestId = await until('the form request', async () => {
      const { requests } = await api<{ requests: { id: string; session_id: string }[] }>(
        world,
        'GET',
        '/api/v1/user-inputs',
      );
      return requests.find((request) => request.session_id === sessionId)?.id;
    });
    return { sessionId, requestId };
  }
});
