/**
 * A failed session says why in the web app and can be restarted there: a
 * real agent script that fails with a message on stderr, then is fixed, and
 * the restarted agent answers. Real server, real processes, Chromium.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoAgentPath } from '../../src/agents/profiles.js';
import {
  api,
  launchChromium,
  signedInPage,
  startWorld,
  type CreatedTask,
  type World,
} from './support/harness.js';
import { de } from '../../web/src/i18n/de.js';
import { ja } from '../../web/src/i18n/ja.js';
import { agentReplies, sendMessage, until, WAIT } from './support/clarification-pages.js';
import { liveRoute } from './support/live-route.js';

describe('a failed session in the web app', () => {
  const dir = mkdtempSync(join(tmpdir(), 'clarion-failing-agent-'));
  const script = join(dir, 'agent.sh');
  let world: World;
  let browser: Browser;

  beforeAll(async () => {
    writeFileSync(script, 'echo "no API key configured" >&2\nexit 3\n');
    const profiles = { flaky: { command: '/bin/sh', args: [script] } };
    [world, browser] = await Promise.all([
      startWorld({}, { CLARION_AGENT_PROFILES: JSON.stringify(profiles) }),
      launchChromium(),
    ]);
  });

  afterAll(async () => {
    await browser.close();
    await world.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows the reason and restarts the agent once the cause is gone', async () => {
    const created = await api<CreatedTask>(world, 'POST', '/api/v1/tasks', {
      title: 'Flaky agent',
      agent_profile: 'flaky',
      prompt: 'hello',
    });
    const context = await browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(world.signInUrl);
    await page.waitForURL(`${world.origin}/`);
    await page.goto(`${world.origin}/sessions/${created.session.id}`);
    const banner = page.getByTestId('session-failure');
    await banner.waitFor(WAIT);
    await expect
      .poll(() => page.getByTestId('session-failure-message').textContent(), WAIT)
      .toContain('no API key configured');

    writeFileSync(script, `exec "${process.execPath}" "${demoAgentPath()}"\n`);
    await page.getByTestId('session-restart').click();
    await banner.waitFor({ state: 'detached', ...WAIT });

    // Sent while the restarted agent may still be starting: it waits for that start, never a 503.
    await sendMessage(world, created.session.id, 'are you back?');
    await until(
      () => agentReplies(world, created.session.id),
      (replies) => replies.some((reply) => reply.includes('are you back?')),
    );
    await context.close();
  });

  it('says a restart that did not reach the server in the page’s language', async () => {
    writeFileSync(script, 'echo "no API key configured" >&2\nexit 3\n');
    const created = await api<CreatedTask>(world, 'POST', '/api/v1/tasks', {
      title: 'Flaky agent, German page',
      agent_profile: 'flaky',
      prompt: 'hello',
    });
    const page = await signedInPage(world, browser, undefined, { locale: 'de-DE' });
    await page.goto(`${world.origin}/sessions/${created.session.id}`);
    await page.getByTestId('session-failure').waitFor(WAIT);
    await liveRoute(page, '**/api/v1/sessions/*/restart', (route) => route.abort());
    await page.getByTestId('session-restart').click();
    await expect
      .poll(() => page.getByTestId('session-failure').locator('.error').textContent(), WAIT)
      .toBe(de.session.failure.restartFailed.replace('{{reason}}', de.failure.network));
    // Said again in a language chosen afterwards, not kept in the one it was first said in.
    await page.getByTestId('language-switch').selectOption('ja');
    await expect
      .poll(() => page.getByTestId('session-failure').locator('.error').textContent(), WAIT)
      .toBe(ja.session.failure.restartFailed.replace('{{reason}}', ja.failure.network));
    await page.context().close();
  });
});
