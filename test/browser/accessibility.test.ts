/**
 * Every screen of the web app, audited by axe-core and photographed, on a
 * 1440×900 desktop and a 390×844 phone, in light and dark (issue 15): the
 * inbox (empty, with the phone's account menu open, and with items), a session with a pending question (single
 * and multi-select steps), a delete's confirmation, the consent, action and
 * form cards (the form also with its errors shown), settings, people (an
 * invite's link and a removal to confirm), the decision log (also with a "To"
 * day before its "From" day), a transcript longer than a page (its "Show
 * earlier messages", and that read failed), the inbox saying more questions
 * wait than it lists, the answer page and the signed-out page; the newest
 * of these also within a phone's width. No serious or critical violation may remain, and
 * no screen's headings may skip a level (one h1, then one level at a time);
 * screenshots go to `dist/test-artifacts/screen-<screen>-<size>-<scheme>.png`.
 * In forced colours the active question step keeps a mark of its own. Going
 * up a long page by keyboard, no focused control is left under the sticky
 * header (WCAG 2.4.11), whether it takes one row or three.
 *
 * One world and one Chromium; one page per size and sign-in state, reused
 * from screen to screen, so the whole matrix stays a short run.
 */
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { formRequester, mintAnswerLinks } from '../../src/turns/index.js';
import { TRANSCRIPT_PAGE_ROWS } from '../../web/src/model/transcript-window.js';
import { seedTranscript } from '../support/seed.js';
import { DEPLOY_FORM } from './support/deploy-form.js';
import { agentReplies, overflowsHorizontally, until } from './support/clarification-pages.js';
import {
  api,
  ARTIFACTS,
  askingTask,
  launchChromium,
  startWorld,
  type CreatedTask,
  type World,
} from './support/harness.js';
import { liveRoute } from './support/live-route.js';

const WAIT = { timeout: 30_000 };
const AXE = resolve(import.meta.dirname, '../../node_modules/axe-core/axe.min.js');
const SIZES = {
  desktop: { viewport: { width: 1440, height: 900 } },
  phone: {
    viewport: { width: 390, height: 844 },
    hasTouch: true,
    isMobile: true,
    deviceScaleFactor: 2,
  },
} as const;
type Size = keyof typeof SIZES;
const SCHEMES = ['light', 'dark'] as const;

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

type StorageState = Awaited<ReturnType<BrowserContext['storageState']>>;

/**
 * Puts axe-core into every document the context loads. An init script is compiled once and
 * kept; injecting it into each loaded screen instead cost 1–2 s of the audit's time per page.
 */
async function withAxe(context: BrowserContext): Promise<void> {
  await context.addInitScript({ path: AXE });
}

/**
 * The serious and critical findings of axe on what the page shows now, one line each, with
 * WCAG 2.2's target size (off in axe by default) among them. Read from the page's top: scrolled,
 * a link the sticky header half covers says where the page was left, not how big the link is.
 */
async function audit(page: Page): Promise<string[]> {
  const violations = await page.evaluate<Violation[]>(
    `(() => {
      window.scrollTo(0, 0);
      const rules = { 'target-size': { enabled: true } };
      return axe.run(document, { resultTypes: ['violations'], rules }).then((result) => result.violations);
    })()`,
  );
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .flatMap((violation) =>
      violation.nodes.map(
        (node) =>
          `${violation.id} (${violation.impact ?? ''}) ${node.target.join(' ')}: ${
            node.failureSummary?.replace(/\s+/g, ' ') ?? violation.help
          }`,
      ),
    );
}

/**
 * Headings that skip a level (an h3 right under an h1), a page without
 * exactly one h1, and a heading drawn larger than one it sits under: the
 * page's outline must hold together, heard and seen.
 */
function outlineGaps(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(
    `(() => {
      const headings = [...document.querySelectorAll('h1, h2, h3, h4, h5, h6')]
        .filter((heading) => heading.getClientRects().length > 0);
      const gaps = [];
      if (headings.filter((heading) => heading.tagName === 'H1').length !== 1) gaps.push('not one h1');
      let level = 0;
      // The font size of the nearest heading above at each level: a sub-heading is never larger.
      const sizes = [];
      for (const heading of headings) {
        const next = Number(heading.tagName[1]);
        const name = heading.tagName.toLowerCase() + ' “' + heading.textContent.trim() + '”';
        if (next > level + 1) gaps.push(name + ' under h' + level);
        const size = parseFloat(getComputedStyle(heading).fontSize);
        const above = sizes.slice(1, next).filter((known) => known !== undefined);
        if (above.length > 0 && size > Math.min(...above) + 0.5) gaps.push(name + ' larger than a heading above it');
        sizes[next] = size;
        sizes.length = next + 1;
        level = next;
      }
      return gaps;
    })()`,
  );
}

/** Focuses the last control the Tab key reaches in the page's main part. */
const LAST_CONTROL_FOCUSED = `(() => {
  const controls = [...document.querySelectorAll('#main a[href], #main button, #main input, #main select, #main textarea')]
    .filter((control) => !control.disabled && control.getClientRects().length > 0);
  controls.at(-1).focus();
})()`;

interface Focused {
  label: string;
  top: number;
  bottom: number;
  headerBottom: number;
  viewport: number;
  inHeader: boolean;
}

/** Where the focused control is, against the sticky header's bottom edge and the window's. */
const FOCUSED_BOX = `(() => {
  const focused = document.activeElement;
  const header = document.querySelector('.app-header');
  const box = focused.getBoundingClientRect();
  return {
    label: focused.getAttribute('data-testid') ?? focused.tagName,
    top: Math.round(box.top),
    bottom: Math.round(box.bottom),
    headerBottom: Math.round(header.getBoundingClientRect().bottom),
    viewport: window.innerHeight,
    inHeader: header.contains(focused),
  };
})()`;

/** WCAG's contrast ratio of two `rgb(r, g, b)` colours. */
function contrast(one: string, two: string): number {
  const luminance = (rgb: string) => {
    const [r = 0, g = 0, b = 0] = (rgb.match(/\d+/g) ?? []).slice(0, 3).map((value) => {
      const channel = Number(value) / 255;
      return channel <= 0.03928 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const [light, dark] = [luminance(one), luminance(two)].sort((a, b) => b - a);
  return ((light ?? 0) + 0.05) / ((dark ?? 0) + 0.05);
}

/** Two animation frames: a colour-scheme switch has restyled and painted. */
function settle(page: Page): Promise<unknown> {
  return page.evaluate(
    'new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done(true))))',
  );
}

describe('every screen, light and dark, desktop and phone', () => {
  let world: World;
  let browser: Browser;
  let signedIn: StorageState;
  const pages = new Map<string, Page>();
  const screenshots: string[] = [];

  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    [world, browser] = await Promise.all([startWorld(), launchChromium()]);
    const context = await browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(world.signInUrl);
    await page.waitForURL(`${world.origin}/`);
    await page.getByTestId('connection').and(page.locator('[data-state="live"]')).waitFor(WAIT);
    signedIn = await context.storageState();
    await context.close();
  });

  afterAll(async () => {
    await browser.close();
    await world.close();
    if (screenshots.length > 0) console.log(`screenshots:\n${screenshots.join('\n')}`);
  });

  /** The page of one size, signed in or a stranger's (no cookie); made once, then reused. */
  async function pageOf(size: Size, who: 'person' | 'stranger'): Promise<Page> {
    const key = `${size}-${who}`;
    const known = pages.get(key);
    if (known) return known;
    const context = await browser.newContext({
      ...SIZES[size],
      locale: 'en-US',
      // The app's CSP refuses an injected script; only the audit needs this.
      bypassCSP: true,
      ...(who === 'person' ? { storageState: signedIn } : {}),
    });
    context.setDefaultTimeout(30_000);
    await withAxe(context);
    const page = await context.newPage();
    pages.set(key, page);
    return page;
  }

  interface CheckOptions {
    /** Whose page: the signed-in person's, or a stranger's (no cookie). */
    who?: 'person' | 'stranger';
    /**
     * A variation of the screen the last check left at `path`: each page goes
     * on from there instead of loading it again (a second or more each), and
     * loads it only when it shows another (the test run on its own).
     */
    onShown?: boolean;
  }

  /**
   * Opens `path` on both sizes, lets `ready` wait for the screen, then audits
   * and photographs it in each colour scheme. Every finding fails the test.
   */
  async function check(
    screen: string,
    path: string,
    ready: (page: Page) => Promise<unknown>,
    { who = 'person', onShown = false }: CheckOptions = {},
  ): Promise<void> {
    const findings: string[] = [];
    for (const size of Object.keys(SIZES) as Size[]) {
      const page = await pageOf(size, who);
      await page.emulateMedia({ colorScheme: 'light' });
      const url = `${world.origin}${path}`;
      if (!onShown || page.url() !== url) await page.goto(url);
      await ready(page);
      findings.push(...(await outlineGaps(page)).map((gap) => `${size} outline: ${gap}`));
      for (const scheme of SCHEMES) {
        await page.emulateMedia({ colorScheme: scheme });
        await settle(page);
        findings.push(...(await audit(page)).map((line) => `${size} ${scheme}: ${line}`));
        const file = join(ARTIFACTS, `screen-${screen}-${size}-${scheme}.png`);
        // The audit runs at the phone's pixel ratio; its photograph, at CSS pixels, costs a third.
        await page.screenshot({ path: file, fullPage: true, scale: 'css' });
        screenshots.push(file);
      }
    }
    expect(findings).toEqual([]);
  }

  function startTask(title: string, prompt: string): Promise<CreatedTask> {
    return api<CreatedTask>(world, 'POST', '/api/v1/tasks', { title, prompt });
  }

  interface Request {
    id: string;
    session_id: string;
    options?: { option_id: string }[];
  }

  async function waitForRequest(sessionId: string): Promise<Request> {
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      const list = await api<{ requests: Request[] }>(world, 'GET', '/api/v1/user-inputs');
      const found = list.requests.find((request) => request.session_id === sessionId);
      if (found) return found;
      await new Promise((done) => setTimeout(done, 100));
    }
    throw new Error('no consent or action request within 30 s');
  }

  async function pendingOf(sessionId: string): Promise<string> {
    const pending = await api<{ bundles: { pending_id: string; session_id: string }[] }>(
      world,
      'GET',
      '/api/v1/pending',
    );
    const found = pending.bundles.find((bundle) => bundle.session_id === sessionId);
    if (!found) throw new Error('nothing pending');
    return found.pending_id;
  }

  let single: CreatedTask;
  let multi: CreatedTask;
  let consent: CreatedTask;
  let action: CreatedTask;

  it('the empty inbox', async () => {
    await check('inbox-empty', '/', (page) => page.getByTestId('inbox-empty').waitFor());
  });

  it('the account menu, open on a phone', async () => {
    await check(
      'account-menu',
      '/',
      async (page) => {
        // A desktop shows the account in the header's row: nothing to open there.
        const toggle = page.getByTestId('account-toggle');
        if (!(await toggle.isVisible())) return;
        await toggle.click();
        await page.getByTestId('sign-out').waitFor();
      },
      { onShown: true },
    );
  });

  it('the inbox with items', async () => {
    [single, multi, consent, action] = await Promise.all([
      askingTask(world, 'Configure the app', '/ask'),
      askingTask(world, 'Set up CI', '/ask-multi'),
      startTask('Read the secrets', '/permission'),
      startTask('Connect staging', '/action'),
    ]);
    await Promise.all([waitForRequest(consent.session.id), waitForRequest(action.session.id)]);
    await check('inbox', '/', (page) =>
      page.getByTestId('inbox-item').nth(1).and(page.locator(':visible')).waitFor(),
    );
  });

  it('a session with a pending single question', async () => {
    await check('session-question', `/sessions/${single.session.id}`, (page) =>
      page.getByTestId('clarification-overlay').waitFor(),
    );
  });

  it('a live question asking to confirm its cancel', async () => {
    await check(
      'question-cancel-confirm',
      `/sessions/${single.session.id}`,
      async (page) => {
        await page.getByTestId('question-cancel').click();
        await page.getByTestId('question-cancel-confirm').waitFor();
      },
      { onShown: true },
    );
  });

  it('a session’s delete confirmation', async () => {
    // A session with nothing pending: on a phone an open question's sheet covers the header.
    const idle = await api<CreatedTask>(world, 'POST', '/api/v1/tasks', { title: 'Tidy up' });
    await check('session-delete-confirm', `/sessions/${idle.session.id}`, async (page) => {
      await page.getByTestId('task-delete').click();
      await page.getByTestId('delete-confirm').waitFor();
    });
  });

  it('a multi-select step of a three-question bundle', async () => {
    await check('question-multi', `/sessions/${multi.session.id}`, async (page) => {
      await page.getByTestId('clarification-overlay').waitFor();
      await page.getByTestId('clarification-next').click();
      await page.locator('[data-question-id="q2"]').waitFor();
    });
  });

  it('the consent card', async () => {
    await check('consent', `/sessions/${consent.session.id}`, (page) =>
      page.getByTestId('consent-option').first().waitFor(),
    );
  });

  it('the consent card asking for a Reject’s reason', async () => {
    await check(
      'consent-reject-reason',
      `/sessions/${consent.session.id}`,
      async (page) => {
        await page.locator('[data-testid="consent-option"][data-kind="reject_once"]').click();
        await page.getByTestId('decision-reason').waitFor();
      },
      { onShown: true },
    );
  });

  it('the action card', async () => {
    await check('action', `/sessions/${action.session.id}`, (page) =>
      page.getByTestId('action-done').waitFor(),
    );
  });

  it('the form card, and the form card showing its errors', async () => {
    // A form comes only from an agent's generic elicitation: raised here as the ACP host would.
    const created = await startTask('Deploy with a form', 'deploy');
    const requestForm = formRequester(
      { store: world.clarion.store },
      () => world.clarion.turns.userInputs,
    );
    const abandon = new AbortController();
    void requestForm({
      sessionId: created.session.id,
      turnId: undefined,
      message: 'Where should this be deployed?',
      schema: DEPLOY_FORM,
      signal: abandon.signal,
    }).catch(() => undefined);
    const card = (page: Page) => page.locator('[data-testid="user-input-card"][data-kind="form"]');
    await check('form', `/sessions/${created.session.id}`, (page) =>
      card(page).getByTestId('form-submit').waitFor(),
    );
    await check(
      'form-errors',
      `/sessions/${created.session.id}`,
      async (page) => {
        await card(page).getByTestId('form-submit').click();
        await card(page).getByTestId('form-error').first().waitFor();
      },
      { onShown: true },
    );
    abandon.abort();
  });

  it('settings', async () => {
    await check('settings', '/settings', (page) => page.getByTestId('settings').waitFor());
  });

  it('people, with a new teammate’s sign-in link and a removal to confirm', async () => {
    await check('people', '/people', async (page) => {
      await page.getByTestId('people').waitFor();
      await page.getByTestId('invite-name').fill('Axe');
      await page.getByTestId('invite-submit').click();
      await page.getByTestId('invite-link-qr').waitFor();
      await page.getByTestId('member').filter({ hasText: 'Axe' }).first().waitFor();
      await page.getByTestId('member-remove').first().click();
      await page.getByTestId('decision-confirm').waitFor();
    });
  });

  it('settings asking before a channel is removed and a token revoked', async () => {
    await api(world, 'POST', '/api/v1/notification-channels', {
      kind: 'webhook',
      url: 'https://relay.test/hook',
      name: 'Team relay',
    });
    await api(world, 'POST', '/api/v1/tokens', { name: 'Laptop script' });
    await check('settings-confirm', '/settings', async (page) => {
      const channel = page.getByTestId('notification-channel').filter({ hasText: 'Team relay' });
      await channel.getByRole('button', { name: 'Remove Team relay', exact: true }).click();
      await page.getByRole('button', { name: 'Revoke the token Laptop script' }).click();
      await page.getByTestId('notification-remove-confirm').waitFor();
      await page.getByTestId('api-token-revoke-confirm').waitFor();
    });
  });

  it('the decision log', async () => {
    const decided = await startTask('Run the migrations', '/permission');
    const request = await waitForRequest(decided.session.id);
    await api(world, 'POST', `/api/v1/user-inputs/${request.id}/respond`, {
      option_id: request.options?.[0]?.option_id,
    });
    await check('decisions', '/decisions', (page) =>
      page.getByTestId('decision-item').first().waitFor(),
    );
  });

  it('a transcript longer than a page, with "Show earlier messages", and its failed read', async () => {
    const long = await startTask('A long day', 'first words');
    await until(
      () => agentReplies(world, long.session.id),
      (replies) => replies.length >= 1,
    );
    await seedTranscript(world.clarion.store, long.session.id, TRANSCRIPT_PAGE_ROWS + 20);
    const earlier = (page: Page) => page.getByTestId('transcript-earlier');
    await check('session-earlier', `/sessions/${long.session.id}`, async (page) => {
      await earlier(page).waitFor();
      expect(await overflowsHorizontally(page)).toBe(false);
    });
    // The earlier page cannot be read: the button stays, and the failure is said beside it.
    const earlierRead = '**/api/v1/sessions/*/messages?*cursor=*';
    const routed = await Promise.all(
      (['desktop', 'phone'] as const).map((size) => pageOf(size, 'person')),
    );
    await Promise.all(routed.map((page) => liveRoute(page, earlierRead, (route) => route.abort())));
    await check(
      'session-earlier-failed',
      `/sessions/${long.session.id}`,
      async (page) => {
        await earlier(page).click();
        await page.getByTestId('transcript-earlier-failed').waitFor();
        expect(await overflowsHorizontally(page)).toBe(false);
      },
      { onShown: true },
    );
    await Promise.all(routed.map((page) => page.unroute(earlierRead)));
  });

  it('the inbox saying more questions wait than it lists', async () => {
    await askingTask(world, 'One of many', '/ask');
    // More than the inbox reads would take thousands of questions: every page read says more follow.
    const pendingRead = '**/api/v1/pending*';
    const routed = await Promise.all(
      (['desktop', 'phone'] as const).map((size) => pageOf(size, 'person')),
    );
    await Promise.all(
      routed.map((page) =>
        liveRoute(page, pendingRead, async (route) => {
          const url = new URL(route.request().url());
          url.searchParams.delete('cursor');
          const response = await route.fetch({ url: url.toString() });
          const body = (await response.json()) as Record<string, unknown>;
          await route.fulfill({ response, json: { ...body, next_cursor: 'more' } });
        }),
      ),
    );
    await check('inbox-more', '/', async (page) => {
      await page.getByTestId('inbox-more').waitFor();
      await page.getByTestId('inbox-item').first().waitFor();
      expect(await overflowsHorizontally(page)).toBe(false);
    });
    await Promise.all(routed.map((page) => page.unroute(pendingRead)));
  });

  it('the decision log with a "To" day before its "From" day', async () => {
    await check('decisions-inverted', '/decisions', async (page) => {
      await page.getByTestId('decision-item').first().waitFor();
      await page.getByTestId('filter-since').fill('2026-03-10');
      await page.getByTestId('filter-until').fill('2026-03-01');
      await page.getByTestId('decisions-range-inverted').waitFor();
      expect(await overflowsHorizontally(page)).toBe(false);
    });
  });

  it('the answer page of an answer link', async () => {
    const me = await api<{ user: { id: string } }>(world, 'GET', '/api/v1/me');
    const links = await mintAnswerLinks(
      { ...world.clarion.turns, origin: () => world.origin },
      { userId: me.user.id, kind: 'question', itemId: await pendingOf(single.session.id) },
    );
    const url = new URL(links[1]?.url ?? '');
    await check(
      'answer',
      `${url.pathname}${url.hash}`,
      (page) => page.getByTestId('answer-confirm').waitFor(),
      { who: 'stranger' },
    );
  });

  it('the signed-out page', async () => {
    await check('signed-out', '/signed-out', (page) => page.getByTestId('sign-in').waitFor(), {
      who: 'stranger',
    });
  });

  it('names the option groups by their question, moves between options with arrow keys and announces progress', async () => {
    const page = await pageOf('desktop', 'person');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.goto(`${world.origin}/sessions/${multi.session.id}`);
    const runner = page.getByRole('radiogroup', {
      name: 'Which CI runner should the pipeline use?',
      exact: true,
    });
    await runner.waitFor();
    const options = runner.getByRole('radio');
    await expect(options.count()).resolves.toBe(2);
    const tabStops = () =>
      page.evaluate<string[]>(
        `[...document.querySelectorAll('[data-testid="clarification-question"] [role="radio"], [data-testid="clarification-question"] [role="checkbox"]')]
          .filter((option) => option.tabIndex === 0).map((option) => option.dataset.optionId)`,
      );
    await expect(tabStops()).resolves.toEqual(['hosted']);

    // ↓ moves focus (and the one tab stop) without picking; ↓ again wraps to the first.
    await options.first().focus();
    await page.keyboard.press('ArrowDown');
    await expect(page.evaluate('document.activeElement.dataset.optionId')).resolves.toBe(
      'self_hosted',
    );
    await expect(tabStops()).resolves.toEqual(['self_hosted']);
    await expect(options.nth(1).getAttribute('aria-checked')).resolves.toBe('false');
    await page.keyboard.press('ArrowDown');
    await expect(page.evaluate('document.activeElement.dataset.optionId')).resolves.toBe('hosted');
    await page.keyboard.press('End');
    await expect(page.evaluate('document.activeElement.dataset.optionId')).resolves.toBe(
      'self_hosted',
    );

    // The keyboard focus ring is not the active step's ring: another colour, and an outline.
    const rings = await page.evaluate<{ focus: string; width: string; step: string }>(
      `(() => {
        const focused = getComputedStyle(document.activeElement);
        const step = getComputedStyle(document.querySelector('.step[data-active="true"]'));
        return { focus: focused.outlineStyle + ' ' + focused.outlineColor, width: focused.outlineWidth, step: step.boxShadow + ' ' + step.outlineStyle };
      })()`,
    );
    expect(rings.focus).toMatch(/^solid rgb/);
    expect(parseFloat(rings.width)).toBeGreaterThanOrEqual(2);
    const focusColour = rings.focus.replace('solid ', '');
    expect(rings.step).toContain('rgb');
    expect(rings.step).not.toContain(focusColour);
    expect(rings.step).toMatch(/none$/);

    // Picking is announced through the live region.
    const progress = page.getByRole('status').filter({ hasText: 'answered' });
    await expect(progress.textContent()).resolves.toBe('0 of 3 answered');
    await page.keyboard.press('Space');
    await expect.poll(() => progress.textContent()).toBe('1 of 3 answered');

    // The multi-select step is a named group of checkboxes with the same movement.
    const checks = page.getByRole('group', {
      name: 'Which checks should run on every pull request?',
      exact: true,
    });
    await checks.getByRole('checkbox').first().waitFor();
    await expect(checks.getByRole('checkbox').count()).resolves.toBe(3);
    await checks.getByRole('checkbox').first().focus();
    await page.keyboard.press('ArrowUp');
    await expect(page.evaluate('document.activeElement.dataset.optionId')).resolves.toBe('build');
  });

  it('draws the keyboard focus ring visibly apart from the active step’s ring, light and dark', async () => {
    const created = await askingTask(world, 'Focus rings', '/ask-multi');
    const page = await pageOf('desktop', 'person');
    await page.goto(`${world.origin}/sessions/${created.session.id}`);
    const options = page.getByRole('radiogroup').first().getByRole('radio');
    await options.first().waitFor();
    interface Rings {
      focusStyle: string;
      focusColour: string;
      focusWidth: number;
      focusOffset: number;
      optionShadow: string;
      stepOutline: string;
      stepShadow: string;
      stepFocusedOutline: string;
      grounds: string[];
    }
    const channels = (rgb: string) => (rgb.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map(Number);
    /** How far from grey a colour is: 0 for a neutral, up to 255 for a pure hue. */
    const chroma = (rgb: string) => Math.max(...channels(rgb)) - Math.min(...channels(rgb));
    for (const scheme of SCHEMES) {
      await page.emulateMedia({ colorScheme: scheme });
      await settle(page);
      // By keyboard, so :focus-visible (the ring a keyboard user sees) applies.
      await options.first().focus();
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('ArrowUp');
      const rings = await page.evaluate<Rings>(
        `(() => {
          const option = document.activeElement;
          // Computed styles are live: read each before focus moves on.
          const focused = getComputedStyle(option);
          const stepElement = document.querySelector('.step[data-active="true"]');
          const step = getComputedStyle(stepElement);
          const probe = document.body.appendChild(document.createElement('span'));
          const grounds = ['--bg', '--surface'].map((name) => {
            probe.style.color = 'var(' + name + ')';
            return getComputedStyle(probe).color;
          });
          probe.remove();
          const result = {
            focusStyle: focused.outlineStyle,
            focusColour: focused.outlineColor,
            focusWidth: parseFloat(focused.outlineWidth),
            focusOffset: parseFloat(focused.outlineOffset),
            optionShadow: focused.boxShadow,
            stepOutline: step.outlineStyle,
            stepShadow: step.boxShadow,
            grounds,
          };
          stepElement.focus({ focusVisible: true });
          result.stepFocusedOutline = step.outlineStyle + ' ' + step.outlineColor;
          option.focus();
          return result;
        })()`,
      );
      // The focus ring: a solid outline, thicker than the step's ring and standing off the element.
      expect(rings.focusStyle, scheme).toBe('solid');
      expect(rings.focusWidth, scheme).toBeGreaterThanOrEqual(3);
      expect(rings.focusOffset, scheme).toBeGreaterThanOrEqual(2);
      expect(rings.optionShadow, scheme).toBe('none');
      // The active step: a 2 px shadow ring hugging the circle, never an outline.
      expect(rings.stepOutline, scheme).toBe('none');
      const stepColour = /rgba?\([^)]*\)/.exec(rings.stepShadow)?.[0] ?? '';
      expect(rings.stepShadow, scheme).toMatch(/ 0px 0px 0px 2px$/);
      // Apart in hue even where their lightness is close: a neutral ring against the accent's blue.
      expect(chroma(rings.focusColour), `${scheme} focus ${rings.focusColour}`).toBeLessThanOrEqual(
        24,
      );
      expect(chroma(stepColour), `${scheme} step ${stepColour}`).toBeGreaterThanOrEqual(96);
      // And the focus ring itself stands out from what it is drawn on (WCAG 1.4.11: 3:1).
      for (const ground of rings.grounds) {
        expect(
          contrast(rings.focusColour, ground),
          `${scheme} on ${ground}`,
        ).toBeGreaterThanOrEqual(3);
      }
      // The active step with focus shows both: the focus outline outside its own ring.
      expect(rings.stepFocusedOutline, scheme).toBe(`solid ${rings.focusColour}`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('labels each button by what it does in Japanese, on a phone', async () => {
    const context = await browser.newContext({
      ...SIZES.phone,
      locale: 'ja-JP',
      bypassCSP: true,
      storageState: signedIn,
    });
    await withAxe(context);
    const page = await context.newPage();
    await page.goto(`${world.origin}/sessions/${multi.session.id}`);
    await page.getByTestId('clarification-overlay').waitFor(WAIT);
    // The events socket may still be connecting on a loaded machine: wait, then read its label.
    await page.getByTestId('connection').and(page.locator('[data-state="live"]')).waitFor(WAIT);
    await expect(page.getByTestId('connection').textContent()).resolves.toBe('接続済み');
    const labels = await Promise.all(
      ['composer-send', 'clarification-submit', 'clarification-custom-send'].map(async (testId) =>
        (await page.getByTestId(testId).textContent())?.trim(),
      ),
    );
    expect(labels).toEqual(['メッセージを送信', '回答を送信', 'この回答にする']);
    expect(await audit(page)).toEqual([]);
    await context.close();
  });

  it('keeps the focused control clear of the sticky header going up a long page', async () => {
    // The header's one row on a desktop, and its three on a German phone 320 px wide.
    const sizes = [
      { viewport: { width: 1280, height: 600 }, locale: 'en-US' },
      { viewport: { width: 320, height: 568 }, hasTouch: true, isMobile: true, locale: 'de-DE' },
    ];
    const obscured: string[] = [];
    for (const size of sizes) {
      const context = await browser.newContext({ ...size, storageState: signedIn });
      const page = await context.newPage();
      // Each page's last section, loaded: its sections load one by one, the last control is in it.
      for (const [path, last] of [
        ['/settings', ['notification-channels', 'notification-channels-empty']],
        ['/people', ['workspace']],
      ] as const) {
        await page.goto(`${world.origin}${path}`);
        await page
          .locator(last.map((testId) => `[data-testid="${testId}"]`).join(', '))
          .first()
          .waitFor(WAIT);
        await page.evaluate(LAST_CONTROL_FOCUSED);
        // The walk starts below the first screen, or it would prove nothing.
        await expect(page.evaluate('window.scrollY')).resolves.toBeGreaterThan(0);
        // Shift+Tab from the page's last control to the header, as a keyboard user goes back up.
        for (let step = 0; step < 80; step++) {
          await page.keyboard.press('Shift+Tab');
          const where = await page.evaluate<Focused>(FOCUSED_BOX);
          if (where.inHeader) break;
          if (where.top < where.headerBottom - 1 || where.bottom > where.viewport + 1)
            obscured.push(`${size.locale} ${path}: ${where.label} at ${String(where.top)}`);
        }
        await expect(page.evaluate(FOCUSED_BOX)).resolves.toMatchObject({ inHeader: true });
      }
      await context.close();
    }
    expect(obscured).toEqual([]);
  });

  it('marks the active step in forced colours, where its shadow ring is dropped', async () => {
    // A context of its own: forced colours must not leak into the other checks.
    const context = await browser.newContext({ ...SIZES.desktop, storageState: signedIn });
    const page = await context.newPage();
    await page.emulateMedia({ forcedColors: 'active' });
    await page.goto(`${world.origin}/sessions/${multi.session.id}`);
    await page.locator('.step[data-active="true"]').waitFor();
    // What a forced palette keeps: border and outline shapes; colours and shadows it replaces.
    const looks = await page.evaluate<{ active: string; other: string; shadow: string }>(
      `(() => {
        const look = (step) => {
          const style = getComputedStyle(step);
          return [style.borderTopStyle, style.borderTopWidth, style.outlineStyle, style.outlineWidth].join(' ');
        };
        const active = document.querySelector('.step[data-active="true"]');
        const other = document.querySelector('.step[data-active="false"]');
        return { active: look(active), other: look(other), shadow: getComputedStyle(active).boxShadow };
      })()`,
    );
    await context.close();
    expect(looks.shadow).toBe('none');
    expect(looks.active).not.toBe(looks.other);
  });

  it('keeps status colours at 4.5:1 or more as text, light and dark', async () => {
    const page = await pageOf('desktop', 'person');
    const failures: string[] = [];
    for (const scheme of SCHEMES) {
      await page.emulateMedia({ colorScheme: scheme });
      await settle(page);
      // A probe resolves each token to the colour the browser paints, whatever its spelling.
      const colours = await page.evaluate<Record<string, string>>(
        `(() => {
          const probe = document.body.appendChild(document.createElement('span'));
          const resolved = Object.fromEntries(['--bg', '--surface', '--text', '--muted', '--accent', '--ok', '--warn', '--error']
            .map((name) => { probe.style.color = 'var(' + name + ')'; return [name, getComputedStyle(probe).color]; }));
          probe.remove();
          return resolved;
        })()`,
      );
      for (const text of ['--text', '--muted', '--accent', '--ok', '--warn', '--error']) {
        for (const ground of ['--bg', '--surface']) {
          const ratio = contrast(colours[text] ?? '', colours[ground] ?? '');
          if (!(ratio >= 4.5)) failures.push(`${scheme} ${text} on ${ground}: ${ratio.toFixed(2)}`);
        }
      }
    }
    expect(failures).toEqual([]);
  });
});
