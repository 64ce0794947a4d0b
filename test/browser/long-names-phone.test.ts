/**
 * Long names stay inside a 360 px phone screen: a workspace's or a task's
 * name (well inside their limits) as an option of a choice widened the
 * People page's invite and member forms and the decision log's filters far
 * past the screen, where the page clips them, so Invite was out of reach;
 * a long workspace name ran past the edge as a heading, and so did a
 * question's title of one long word (an identifier, a file name) in the
 * question's sheet. Chromium (Debian's) against a real server.
 *
 * With text at twice its size (a reader's browser set to 32 px instead of
 * 16, WCAG 1.4.4) the question sheet's round mark and its options' numbers,
 * boxes of a fixed 22 px, spilled their glyphs: the mark's is white on the
 * accent, so what spilled was lost against the sheet. With WCAG 1.4.12's
 * text spacing, Settings' one heading without the sections' own size
 * ("Benachrichtigungen", one word) ran past a 320 px screen (a 1280 px window
 * at 400 %).
 */

/** WCAG 1.4.12's text spacing, as its bookmarklet sets it. */
const TEXT_SPACING = `* { line-height: 1.5 !important; letter-spacing: 0.12em !important;
  word-spacing: 0.16em !important } p { margin-bottom: 2em !important }`;
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_QUESTION_TITLE_CHARS } from '../../src/wire/index.js';
import type { Page } from 'playwright-core';
import { api, askingTask } from './support/harness.js';
import { useSuite, WAIT } from './support/clarification-pages.js';

const WIDTH = 360;

/** Marks under `main` whose glyph does not fit their own box. */
const SPILLED_MARKS = `[...document.querySelectorAll('main :is(.clarification-icon, .option-badge)')]
  .filter((mark) => mark.scrollWidth > mark.clientWidth || mark.scrollHeight > mark.clientHeight)
  .map((mark) => mark.className + ' ' + mark.textContent)`;

/** Sets the browser's text size for the page shown now, as a reader does in its settings. */
async function textSize(page: Page, px: number): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Page.setFontSizes', { fontSizes: { standard: px } });
  await cdp.detach();
}

/** Visible elements under `main` whose box ends past the screen's right edge. */
function pastTheEdge(page: Page, width = WIDTH): Promise<string[]> {
  return page.evaluate<string[]>(`[...document.querySelectorAll('main *')]
    .filter((element) => {
      const box = element.getBoundingClientRect();
      return box.width > 0 && box.right > ${String(width)} + 1;
    })
    .map((element) => element.tagName.toLowerCase() + ' ' + (element.getAttribute('data-testid') ?? '') + ' ' + (element.textContent ?? '').slice(0, 30))`);
}

describe('long names on a phone', () => {
  const suite = useSuite();

  it('keep People and the decision log within the screen, Invite in reach', async () => {
    const { world } = suite;
    await api(world, 'POST', '/api/v1/workspaces', {
      // A German compound is one long word: it has to break somewhere.
      name: `Plattforminfrastrukturbetriebsabteilungsleitungsteam ${'and operations '.repeat(4)}`,
    });
    await askingTask(
      world,
      `Migrate ${'every table of the billing database '.repeat(4)}to the new schema`,
      '/ask Which file?',
    );
    const { page } = await suite.phone();
    await page.setViewportSize({ width: WIDTH, height: 740 });

    await page.goto(`${world.origin}/people`);
    await page.getByTestId('invite-submit').waitFor(WAIT);
    await page.getByTestId('workspace').nth(1).waitFor(WAIT);
    await expect(pastTheEdge(page)).resolves.toEqual([]);
    const invite = await page.getByTestId('invite-submit').boundingBox();
    expect(invite?.x ?? Infinity).toBeLessThan(WIDTH);

    await page.goto(`${world.origin}/decisions`);
    await page
      .getByTestId('filter-task')
      .locator('option')
      .nth(1)
      .waitFor({
        state: 'attached',
        ...WAIT,
      });
    await expect(pastTheEdge(page)).resolves.toEqual([]);
  });

  const clients: Client[] = [];
  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.close()));
  });

  it('keep a question’s one-word title within its sheet', async () => {
    const { world } = suite;
    const { secret } = await api<{ secret: string }>(world, 'POST', '/api/v1/tokens', {
      name: 'long title asker',
      kind: 'agent',
    });
    const client = new Client({ name: 'Claude Code', version: '2.0.0' });
    clients.push(client);
    await client.connect(
      new StreamableHTTPClientTransport(new URL('/mcp', world.clarion.url), {
        requestInit: { headers: { authorization: `Bearer ${secret}` } },
      }),
    );
    const title =
      'rename_configuration_loader_and_its_tests_to_match_the_new_layout_of_src_config'.slice(
        0,
        MAX_QUESTION_TITLE_CHARS,
      );
    const options = ['Yes', 'No'].map((label) => ({ label, description: label }));
    const asked = client.callTool(
      {
        name: 'ask_user_question',
        arguments: {
          questions: [
            { title, prompt: 'Rename it?', options },
            { title: 'Second', prompt: 'And the tests?', options },
          ],
        },
      },
      undefined,
      { timeout: 120_000, resetTimeoutOnProgress: true, onprogress: () => undefined },
    );
    asked.catch(() => undefined);
    let sessionId: string | undefined;
    await expect
      .poll(async () => {
        const { bundles } = await api<{
          bundles: { session_id: string; questions: { title: string }[] }[];
        }>(world, 'GET', '/api/v1/pending');
        sessionId = bundles.find((bundle) => bundle.questions[0]?.title === title)?.session_id;
        return sessionId !== undefined;
      }, WAIT)
      .toBe(true);

    const { page } = await suite.phone();
    await page.setViewportSize({ width: WIDTH, height: 740 });
    await page.goto(`${world.origin}/sessions/${sessionId ?? ''}`);
    await page.locator('.question-title').waitFor(WAIT);
    await expect(pastTheEdge(page)).resolves.toEqual([]);
  });

  it('keep the question sheet’s marks whole with text at twice its size', async () => {
    const { world } = suite;
    const { session } = await askingTask(world, 'Read at twice the size', '/ask');
    const { page } = await suite.phone();
    await page.goto(`${world.origin}/sessions/${session.id}`);
    await page.locator('.option-badge').first().waitFor(WAIT);
    await textSize(page, 32);
    await expect(page.locator('main .clarification-icon').count()).resolves.toBe(1);
    await expect(page.evaluate<string[]>(SPILLED_MARKS)).resolves.toEqual([]);
  });

  it('keep Settings within 320 px in German with wider text spacing', async () => {
    const { world } = suite;
    const { page } = await suite.desktop({
      locale: 'de-DE',
      viewport: { width: 320, height: 640 },
    });
    await page.goto(`${world.origin}/settings`);
    await page.getByTestId('notification-reminder').waitFor(WAIT);
    await page.addStyleTag({ content: TEXT_SPACING });
    await expect(page.evaluate('document.documentElement.lang')).resolves.toBe('de');
    await expect(pastTheEdge(page, 320)).resolves.toEqual([]);
  });
});
