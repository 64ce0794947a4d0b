/**
 * A waiting question never covers the session's own controls (exploratory
 * test defect 8): with a long question and a long queue, at 1280×800,
 * 1280×720 and on a 390×844 phone, the header's Stop turn, Delete session
 * and Delete task take a real click once the page is scrolled to its start,
 * and some of the transcript is in view at the start and at the end; the
 * question scrolls within its own bounded panel. An external agent's four
 * long questions (no queue: its session takes no messages) leave the header
 * in reach too. Real server, demo agent, MCP client and Chromium.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { api, askingTask } from './support/harness.js';
import { openSession, sendMessage, until, useSuite, WAIT } from './support/clarification-pages.js';

/** 2,000 code points of a question, in words so that it wraps as prose does. */
const LONG = `${'Should the migration keep the old column? '.repeat(48).slice(0, 1999)}?`;

const SIZES = [
  { name: '1280x800', width: 1280, height: 800 },
  { name: '1280x720', width: 1280, height: 720 },
  { name: 'phone', width: 390, height: 844 },
] as const;

interface Reach {
  /** Each control's test ID, and whether its centre is what the page shows there. */
  controls: Record<string, boolean>;
  /** Whether any point of the transcript is what the page shows. */
  transcriptSeen: boolean;
}

function reachAt(page: Page, where: 'start' | 'end', controls: string[]): Promise<Reach> {
  // A string, because this file is compiled without the DOM library.
  return page.evaluate<Reach>(
    `(async () => {
      window.scrollTo(0, ${where === 'start' ? '0' : 'document.documentElement.scrollHeight'});
      // What a phone's sheet covers is inert, measured again on the frame after a scroll.
      await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
      const shows = (el, x, y) => {
        if (y < 0 || y >= window.innerHeight) return false;
        const at = document.elementFromPoint(x, y);
        return at !== null && (at === el || el.contains(at));
      };
      const controls = {};
      for (const id of ${JSON.stringify(controls)}) {
        const el = document.querySelector('[data-testid="' + id + '"]');
        const r = el.getBoundingClientRect();
        controls[id] = shows(el, r.left + r.width / 2, r.top + r.height / 2);
      }
      const transcript = document.querySelector('[data-testid="transcript"]');
      const t = transcript.getBoundingClientRect();
      let transcriptSeen = false;
      for (let y = Math.max(0, t.top); y < Math.min(window.innerHeight, t.bottom); y += 8) {
        if (shows(transcript, t.left + 12, y)) transcriptSeen = true;
      }
      return { controls, transcriptSeen };
    })()`,
  );
}

async function open(
  size: (typeof SIZES)[number],
  suite: ReturnType<typeof useSuite>,
): Promise<{ context: BrowserContext; page: Page }> {
  const opened = await (size.name === 'phone' ? suite.phone() : suite.desktop());
  if (size.name !== 'phone') {
    await opened.page.setViewportSize({ width: size.width, height: size.height });
  }
  return opened;
}

describe('the session header stays in reach under a waiting question', () => {
  const suite = useSuite();
  const clients: Client[] = [];

  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.close()));
  });

  it('keeps Stop turn and Delete clickable and the transcript in view with a long question and a long queue', async () => {
    const created = await askingTask(suite.world, 'Covered header', `/ask ${LONG}`);
    for (let n = 1; n <= 12; n++) {
      const sent = await sendMessage(suite.world, created.session.id, `queued follow-up ${n}`);
      expect(sent.outcome).toBe('queued');
    }
    const controls = ['session-stop', 'session-delete', 'task-delete'];
    for (const size of SIZES) {
      const { context, page } = await open(size, suite);
      await openSession(suite.world, page, created.session.id);
      await page.getByText('queued follow-up 12', { exact: true }).waitFor(WAIT);
      // The queue and the session are separate reads: the header's controls come with the session.
      await page.getByTestId('session-stop').waitFor(WAIT);

      const start = await reachAt(page, 'start', controls);
      expect(start.controls, `${size.name}, scrolled to the start`).toEqual({
        'session-stop': true,
        'session-delete': true,
        'task-delete': true,
      });
      expect(start.transcriptSeen, `${size.name}: transcript at the start`).toBe(true);
      // At the end a desktop shows the newest rows above the docked question; a phone's sheet
      // covers the window's end, and the page scrolls the queue and the composer above it.
      const end = await reachAt(page, 'end', ['composer-input']);
      if (size.name === 'phone')
        expect(end.controls, 'phone: composer at the end').toEqual({ 'composer-input': true });
      else expect(end.transcriptSeen, `${size.name}: transcript at the end`).toBe(true);
      // The question scrolls within its panel rather than growing over the page.
      const scrolls = await page.evaluate<boolean>(
        `(() => {
          const overlay = document.querySelector('[data-testid="clarification-overlay"]');
          return overlay.scrollHeight > overlay.clientHeight + 1;
        })()`,
      );
      expect(scrolls, size.name).toBe(true);

      await page.evaluate('window.scrollTo(0, 0)');
      await page.getByTestId('session-stop').click({ trial: true, timeout: 5_000 });
      await suite.shoot(page, `session-header-in-reach-${size.name}`, false);
      await context.close();
    }
  }, 180_000);

  it('keeps Delete clickable under four long questions from an external agent', async () => {
    const { world } = suite;
    const { secret } = await api<{ secret: string }>(world, 'POST', '/api/v1/tokens', {
      name: 'long asker',
      kind: 'agent',
    });
    const client = new Client({ name: 'Claude Code', version: '2.0.0' });
    clients.push(client);
    await client.connect(
      new StreamableHTTPClientTransport(new URL('/mcp', world.clarion.url), {
        requestInit: { headers: { authorization: `Bearer ${secret}` } },
      }),
    );
    const call = client.callTool(
      {
        name: 'ask_user_question',
        arguments: {
          context: LONG,
          questions: [1, 2, 3, 4].map((n) => ({
            title: `Question ${String(n)}`,
            prompt: LONG,
            options: [
              { label: `Keep ${String(n)}`, description: LONG.slice(0, 300) },
              { label: `Drop ${String(n)}`, description: LONG.slice(0, 300) },
            ],
          })),
        },
      },
      undefined,
      { timeout: 120_000, resetTimeoutOnProgress: true, onprogress: () => undefined },
    );
    call.catch(() => undefined);
    const pending = await until(
      () =>
        api<{ bundles: { session_id: string; context?: string }[] }>(
          world,
          'GET',
          '/api/v1/pending',
        ),
      (reply) => reply.bundles.some((bundle) => bundle.context === LONG),
    );
    const sessionId = pending.bundles.find((bundle) => bundle.context === LONG)?.session_id;
    if (sessionId === undefined) throw new Error('the long questions are not pending');

    for (const size of SIZES) {
      const { context, page } = await open(size, suite);
      await openSession(world, page, sessionId);
      await page.getByTestId('task-delete').waitFor(WAIT);
      const reach = await reachAt(page, 'start', ['session-delete', 'task-delete']);
      expect(reach.controls, size.name).toEqual({ 'session-delete': true, 'task-delete': true });
      await page.getByTestId('task-delete').click({ trial: true, timeout: 5_000 });
      await context.close();
    }
  }, 180_000);
});
