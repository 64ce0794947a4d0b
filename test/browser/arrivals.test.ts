/**
 * What newly waits is said once through a polite live region, whatever page
 * the person is on: a question that arrives while the inbox is open is told
 * by its kind and task, a request that waited before the page opened is not
 * news, and nothing is told twice as the page goes on updating. Which is
 * which comes from what the page has read, not from clocks: a browser whose
 * clock is hours off tells the same.
 */
import { describe, expect, it } from 'vitest';
import { api, askingTask, type CreatedTask } from './support/harness.js';
import { useSuite, WAIT } from './support/clarification-pages.js';

describe('arrivals told to a screen reader', () => {
  const suite = useSuite();

  it('tells a new question once, and not what already waited', async () => {
    const { world } = suite;
    await askingTask(world, 'Waited before', '/ask');
    const { context, page } = await suite.desktop();
    await page.goto(`${world.origin}/`);
    await page.getByTestId('inbox-item').first().waitFor(WAIT);
    const region = page.getByRole('status').and(page.getByTestId('arrivals'));
    await expect(region.textContent()).resolves.toBe('');
    // Every text the region takes, in order: each one is an announcement.
    await page.evaluate(
      `(() => {
        window.told = [];
        const region = document.querySelector('[data-testid="arrivals"]');
        new MutationObserver(() => window.told.push(region.textContent)).observe(region, {
          childList: true, characterData: true, subtree: true,
        });
      })()`,
    );

    await askingTask(world, 'Ship the release', '/ask');
    await expect
      .poll(() => region.textContent(), WAIT)
      .toBe('Now waiting: Question, “Ship the release”');
    // More updates of the page (a permission that arrives and is decided elsewhere) tell only it.
    const permission = await api<CreatedTask>(world, 'POST', '/api/v1/tasks', {
      title: 'Read the keys',
      prompt: '/permission',
    });
    await expect
      .poll(() => region.textContent(), WAIT)
      .toBe('Now waiting: Permission, “Read the keys”');
    const { requests } = await api<{
      requests: { id: string; session_id: string; options: { option_id: string }[] }[];
    }>(world, 'GET', '/api/v1/user-inputs');
    const request = requests.find((entry) => entry.session_id === permission.session.id);
    await api(world, 'POST', `/api/v1/user-inputs/${request?.id ?? ''}/respond`, {
      option_id: request?.options[0]?.option_id,
    });
    await page
      .getByTestId('inbox-item')
      .filter({ hasText: 'Read the keys' })
      .waitFor({ state: 'detached', ...WAIT });
    await expect(page.evaluate<string[]>('window.told')).resolves.toEqual([
      'Now waiting: Question, “Ship the release”',
      'Now waiting: Permission, “Read the keys”',
    ]);
    await context.close();
  });

  it('tells a new request once and never an old one when the browser’s clock is off', async () => {
    const { world } = suite;
    for (const [name, skewMs] of [
      ['ahead', 3 * 3_600_000],
      ['behind', -3 * 3_600_000],
    ] as const) {
      const old = await askingTask(world, `Waited, clock ${name}`, '/ask');
      const { context, page } = await suite.desktop();
      // Every Date of the page is off by the skew; every text the region takes is kept.
      await page.addInitScript(
        `(() => {
          const Real = Date;
          class Skewed extends Real {
            constructor(...args) {
              if (args.length === 0) super(Real.now() + ${String(skewMs)});
              else super(...args);
            }
            static now() {
              return Real.now() + ${String(skewMs)};
            }
          }
          globalThis.Date = Skewed;
          window.told = [];
          new MutationObserver(() => {
            const region = document.querySelector('[data-testid="arrivals"]');
            const text = region === null ? '' : region.textContent;
            if (text !== '' && text !== window.told[window.told.length - 1]) window.told.push(text);
          }).observe(document, { childList: true, characterData: true, subtree: true });
        })()`,
      );
      await page.goto(`${world.origin}/`);
      const offMs = await page.evaluate<number>('Date.now()');
      expect(Math.abs(offMs - Date.now() - skewMs)).toBeLessThan(600_000);
      await page.getByTestId('inbox-item').filter({ hasText: old.task.title }).waitFor(WAIT);
      await page.getByTestId('connection').and(page.locator('[data-state="live"]')).waitFor(WAIT);

      const fresh = await askingTask(world, `Arrived, clock ${name}`, '/ask');
      const told = `Now waiting: Question, “${fresh.task.title}”`;
      await expect.poll(() => page.getByTestId('arrivals').textContent(), WAIT).toBe(told);
      await expect(page.evaluate<string[]>('window.told')).resolves.toEqual([told]);
      await context.close();
    }
  }, 150_000);

  it('names the region’s news in German and Japanese', async () => {
    const { world } = suite;
    for (const [locale, expected] of [
      ['de-DE', 'Wartet jetzt: Frage, „Auf Deutsch“'],
      ['ja-JP', '新着: 質問「日本語で」'],
    ] as const) {
      const { context, page } = await suite.desktop({ locale });
      await page.goto(`${world.origin}/`);
      await page.getByTestId('connection').and(page.locator('[data-state="live"]')).waitFor(WAIT);
      const title = locale === 'de-DE' ? 'Auf Deutsch' : '日本語で';
      await askingTask(world, title, '/ask');
      await expect.poll(() => page.getByTestId('arrivals').textContent(), WAIT).toBe(expected);
      await context.close();
    }
  });
});
