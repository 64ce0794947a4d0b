/**
 * A transcript names another member above their message without first
 * saying "Someone": not while the members are still being read when the
 * session opens, and not for a member who joined after that read (the app
 * reads the members again for an author it does not know). The members'
 * reply is held back at the browser's edge, so the window in which a wrong
 * label could show is wide; every label the page ever shows is recorded.
 * Debian's Chromium against a real server.
 */
import { describe, expect, it } from 'vitest';
import { agentReplies, until } from './support/clarification-pages.js';
import { api, useWorld } from './support/harness.js';
import { liveRoute } from './support/live-route.js';

const WAIT = { timeout: 30_000 };
/** How long the members' reply is held back: far longer than a first paint. */
const MEMBERS_DELAY_MS = 1_500;

/** Records the text of every `.message-author` the page ever shows (run before the app). */
const RECORD_AUTHOR_LABELS = `(() => {
  window.__authorLabels = [];
  const record = () => {
    for (const element of document.querySelectorAll('.message-author')) {
      const text = element.textContent ?? '';
      if (!window.__authorLabels.includes(text)) window.__authorLabels.push(text);
    }
  };
  new MutationObserver(record).observe(document, {
    subtree: true,
    childList: true,
    characterData: true,
  });
})()`;

describe('message authors in the transcript, in Chromium', () => {
  const suite = useWorld();

  /** A new member of the admin's workspace and their bearer token. */
  async function member(name: string): Promise<string> {
    const { world } = suite;
    const created = await api<{ user: { id: string }; token: string }>(
      world,
      'POST',
      '/api/v1/users',
      { name },
    );
    const { workspaces } = await api<{ workspaces: { id: string }[] }>(
      world,
      'GET',
      '/api/v1/workspaces',
    );
    await api(world, 'POST', `/api/v1/workspaces/${workspaces[0]?.id ?? ''}/members`, {
      user_id: created.user.id,
    });
    return created.token;
  }

  async function say(token: string, sessionId: string, text: string): Promise<void> {
    const { world } = suite;
    const response = await fetch(`${world.clarion.url}/api/v1/sessions/${sessionId}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text, admission_key: text }),
    });
    expect(response.ok).toBe(true);
  }

  it('never labels a member "Someone" while their name is on its way', async () => {
    const { world, browser } = suite;
    const created = await api<{ session: { id: string } }>(world, 'POST', '/api/v1/tasks', {
      title: 'Whose words',
      prompt: 'hello',
    });
    const sessionId = created.session.id;
    await until(
      () => agentReplies(world, sessionId),
      (replies) => replies.length > 0,
    );
    await say(await member('Bob Example'), sessionId, 'from Bob');

    const context = await browser.newContext({ locale: 'en-US' });
    context.setDefaultTimeout(30_000);
    await context.addInitScript(RECORD_AUTHOR_LABELS);
    const page = await context.newPage();
    await liveRoute(page, '**/api/v1/workspaces/*/members', async (route) => {
      await new Promise((done) => setTimeout(done, MEMBERS_DELAY_MS));
      await route.continue();
    });
    await page.goto(world.signInUrl);
    await page.waitForURL(`${world.origin}/`);
    await page.goto(`${world.origin}/sessions/${sessionId}`);
    const labels = () => page.evaluate<string[]>('window.__authorLabels');
    const authors = page.locator('.message-user .message-author');
    await expect.poll(() => authors.allTextContents(), WAIT).toEqual(['You', 'Bob Example']);

    // Carol joins after the page read the members, then writes.
    await say(await member('Carol Example'), sessionId, 'from Carol');
    await expect
      .poll(() => authors.allTextContents(), WAIT)
      .toEqual(['You', 'Bob Example', 'Carol Example']);

    const seen = await labels();
    // The rows were painted before the names came: with a placeholder, never a wrong label.
    expect(seen).toContain('…');
    expect(seen).not.toContain('Someone');
    expect(seen).not.toContain('');
    await context.close();
  });
});
