/**
 * Every pending kind stays in reach in a long session (issue 15), not only
 * the clarification: after twenty exchanges the demo agent asks permission,
 * then for an action, then a form arrives; on a phone each opens as the
 * bottom sheet over the transcript, on a desktop it stays docked, and on
 * both it is wholly on screen (and not covered) on opening and after
 * scrolling back to the start. A key press outside the card answers nothing.
 * Real server, demo agent and Chromium.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { formRequester } from '../../src/turns/index.js';
import { formSchema, type UserInputView } from '../../src/wire/index.js';
import { api, type World } from './support/harness.js';
import {
  scrollToStart,
  sendMessage,
  twentyExchanges,
  until,
  useSuite,
} from './support/clarification-pages.js';

const USER_INPUT_RESPOND = /\/api\/v1\/user-inputs\/[^/]+\/respond$/;

async function waitingRequest(
  world: World,
  sessionId: string,
  kind: UserInputView['kind'],
): Promise<UserInputView> {
  const list = await until(
    () => api<{ requests: UserInputView[] }>(world, 'GET', '/api/v1/user-inputs'),
    (reply) =>
      reply.requests.some(
        (request) =>
          request.session_id === sessionId && request.kind === kind && request.status !== 'settled',
      ),
  );
  const found = list.requests.find(
    (request) =>
      request.session_id === sessionId && request.kind === kind && request.status !== 'settled',
  );
  if (!found) throw new Error(`no waiting ${kind}`);
  return found;
}

interface Placement {
  top: number;
  bottom: number;
  viewport: number;
  /** The sheet's `position` (`fixed` is the phone's bottom sheet); null if the card is in none. */
  sheet: string | null;
  /** Whether the card's own content is what the page shows at its top and bottom edges. */
  uncovered: boolean;
}

function placementOf(page: Page, requestId: string): Promise<Placement> {
  // A string, because this file is compiled without the DOM library.
  return page.evaluate<Placement>(
    `(() => {
      const card = document.querySelector('[data-testid="user-input-card"][data-request-id="${requestId}"]');
      const rect = card.getBoundingClientRect();
      const sheet = card.closest('.question-sheet');
      const x = rect.left + rect.width / 2;
      const hit = (y) => {
        const at = document.elementFromPoint(x, y);
        return at !== null && card.contains(at);
      };
      return {
        top: rect.top,
        bottom: rect.bottom,
        viewport: window.innerHeight,
        sheet: sheet ? getComputedStyle(sheet).position : null,
        uncovered: hit(rect.top + 4) && hit(rect.bottom - 4),
      };
    })()`,
  );
}

function expectInReach(placed: Placement, size: 'desktop' | 'phone'): void {
  expect(placed.top).toBeGreaterThanOrEqual(0);
  expect(placed.bottom).toBeLessThanOrEqual(placed.viewport + 1);
  expect(placed.uncovered).toBe(true);
  if (size === 'phone') expect(placed.sheet).toBe('fixed');
  else expect(placed.sheet).not.toBeNull();
  if (size === 'desktop') expect(placed.sheet).not.toBe('fixed');
}

describe('every pending kind stays in reach', () => {
  const suite = useSuite();

  it('opens a consent, an action and a form after 20 exchanges wholly in view: a sheet on a phone, docked on a desktop', async () => {
    const created = await twentyExchanges(suite.world, 'A long conversation with requests');
    const sessionId = created.session.id;
    const requestForm = formRequester(
      { store: suite.world.clarion.store },
      () => suite.world.clarion.turns.userInputs,
    );
    const abandon = new AbortController();
    const raise = {
      consent: () => sendMessage(suite.world, sessionId, '/permission'),
      action: () => sendMessage(suite.world, sessionId, '/action Connect the staging database'),
      form: () => {
        void requestForm({
          sessionId,
          turnId: undefined,
          message: 'Which environment?',
          schema: formSchema.parse({
            title: 'Environment',
            properties: { env: { type: 'string', title: 'Environment name' } },
            required: ['env'],
          }),
          signal: abandon.signal,
        }).catch(() => undefined);
        return Promise.resolve();
      },
    };
    const settle = {
      consent: (view: UserInputView) =>
        view.kind === 'consent'
          ? { option_id: view.options.find((o) => o.kind === 'allow_once')?.option_id }
          : {},
      action: () => ({ decision: 'done' }),
    };

    for (const kind of ['consent', 'action', 'form'] as const) {
      await raise[kind]();
      const view = await waitingRequest(suite.world, sessionId, kind);
      for (const size of ['desktop', 'phone'] as const) {
        const { context, page } = await (size === 'phone' ? suite.phone() : suite.desktop());
        const responds: string[] = [];
        page.on('request', (request) => {
          if (request.method() === 'POST' && USER_INPUT_RESPOND.test(request.url())) {
            responds.push(request.url());
          }
        });
        await page.goto(`${suite.world.origin}/sessions/${sessionId}`);
        await page
          .locator(
            `[data-testid="user-input-card"][data-request-id="${view.id}"][data-outcome="waiting"]`,
          )
          .waitFor();
        await page
          .getByTestId('transcript')
          .getByText('exchange 20: and then?', { exact: true })
          .waitFor();

        expectInReach(await placementOf(page, view.id), size);
        await expect(scrollToStart(page)).resolves.toBeGreaterThan(0);
        expectInReach(await placementOf(page, view.id), size);
        await suite.shoot(page, `${kind}-in-reach-${size}`, false);

        // Keys pressed outside the card (focus on the page) answer nothing.
        await page.evaluate('document.activeElement && document.activeElement.blur()');
        for (const key of ['1', '2', 'Enter', 'y']) await page.keyboard.press(key);
        await expect(
          page
            .locator(`[data-testid="user-input-card"][data-request-id="${view.id}"]`)
            .getAttribute('data-outcome'),
        ).resolves.toBe('waiting');
        expect(responds).toEqual([]);
        await context.close();
      }
      if (kind !== 'form') {
        await api(
          suite.world,
          'POST',
          `/api/v1/user-inputs/${view.id}/respond`,
          settle[kind](view),
        );
      }
    }
    abandon.abort();
  });
});
