/**
 * A person's name and a decided option are supplied text like a title or a
 * question: every bidi control in them is shown as a visible marker, not
 * obeyed, wherever they appear. Without it `Carol<U+202E>gnp.exe` reads as
 * "Carolexe.png" in the header, the People page and the invite
 * confirmation, and a decided `Keep <U+202E>gnp.exe` reads reversed in the
 * transcript's "Answered: …", its decision record and the Decisions page,
 * though the open question showed the marker. Checked in Debian's Chromium
 * on the rendered text of each place.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { api, signedInPage, type World } from './support/harness.js';
import { useSuite, WAIT } from './support/clarification-pages.js';

/** Every bidi control the app writes out: embeddings, overrides, isolates and the marks. */
const CONTROLS = '\u202A\u202B\u202C\u202D\u202E\u2066\u2067\u2068\u2069\u200E\u200F\u061C';
const RAW_CONTROL = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/u;
const CAROL = `Carol\u202Egnp.exe ${CONTROLS} 🦊`;
const OPTION = `Keep \u202Egnp.exe ${CONTROLS}`;

/** The rendered text of `selector` (attributes aside), once it shows `marker`. */
async function renderedText(page: Page, selector: string, marker = '⟨U+202E⟩'): Promise<string> {
  const element = page.locator(selector).first();
  await expect.poll(() => element.textContent(), WAIT).toContain(marker);
  return (await element.textContent()) ?? '';
}

async function expectNoRawControl(page: Page, selector: string): Promise<void> {
  const text = await renderedText(page, selector);
  expect(text, selector).not.toMatch(RAW_CONTROL);
}

describe('bidi controls in names and decided options, in Chromium', () => {
  const suite = useSuite();
  const clients: Client[] = [];
  const calls: Promise<unknown>[] = [];

  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.close()));
    await Promise.allSettled(calls);
  });

  async function carol(world: World): Promise<{ id: string; token: string }> {
    const created = await api<{ user: { id: string }; token: string }>(
      world,
      'POST',
      '/api/v1/users',
      { name: CAROL },
    );
    const { workspaces } = await api<{ workspaces: { id: string }[] }>(
      world,
      'GET',
      '/api/v1/workspaces',
    );
    await api(world, 'POST', `/api/v1/workspaces/${workspaces[0]?.id ?? ''}/members`, {
      user_id: created.user.id,
    });
    return { id: created.user.id, token: created.token };
  }

  /** The admin's external agent asks one question whose first option holds every control. */
  async function externalAsk(world: World): Promise<{ pendingId: string; sessionId: string }> {
    const minted = await api<{ secret: string }>(world, 'POST', '/api/v1/tokens', {
      name: 'bidi agent',
      kind: 'agent',
    });
    const client = new Client({ name: 'Bidi agent', version: '1.0.0' });
    clients.push(client);
    await client.connect(
      new StreamableHTTPClientTransport(new URL('/mcp', world.clarion.url), {
        requestInit: { headers: { authorization: `Bearer ${minted.secret}` } },
      }),
    );
    const question = {
      prompt: 'Which file stays?',
      options: [
        { label: OPTION, description: 'the one with the marker' },
        { label: 'Other', description: 'the rest' },
      ],
    };
    calls.push(
      client.callTool(
        { name: 'ask_user_question', arguments: { questions: [question] } },
        undefined,
        {
          timeout: 120_000,
          resetTimeoutOnProgress: true,
          onprogress: () => undefined,
        },
      ),
    );
    let found: { pending_id: string; session_id: string } | undefined;
    await expect
      .poll(async () => {
        const pending = await api<{
          bundles: { pending_id: string; session_id: string; questions: { prompt: string }[] }[];
        }>(world, 'GET', '/api/v1/pending');
        found = pending.bundles.find((bundle) => bundle.questions[0]?.prompt === question.prompt);
        return found;
      }, WAIT)
      .toBeDefined();
    return { pendingId: found?.pending_id ?? '', sessionId: found?.session_id ?? '' };
  }

  it('shows a name’s controls as markers in the header, on the People page and in the invite confirmation', async () => {
    const { world, browser } = suite;
    const person = await carol(world);
    const own = await signedInPage(world, browser, person.id);
    await expectNoRawControl(own, '[data-testid="account-menu"]');
    await own.context().close();

    const admin = await signedInPage(world, browser);
    await admin.goto(`${world.origin}/people`);
    await expectNoRawControl(admin, '[data-testid="user-list"]');
    // Among a workspace's members too, and in the question before removing one.
    const member = '[data-testid="workspaces"] [data-testid="member"]:has-text("Carol")';
    await expectNoRawControl(admin, member);
    await admin.locator(member).getByTestId('member-remove').click();
    await expectNoRawControl(admin, `${member} [data-testid="decision-confirm"]`);
    await admin.locator(member).getByTestId('decision-confirm-cancel').click();
    const user = '[data-testid="user"]:has-text("Carol")';
    await admin.locator(user).getByTestId('user-delete').click();
    await expectNoRawControl(admin, `${user} [data-testid="decision-confirm"]`);
    await admin.locator(user).getByTestId('decision-confirm-cancel').click();
    await admin.getByTestId('invite-name').fill(`Dave\u202Etxt.exe ${CONTROLS}`);
    await admin.getByTestId('invite-submit').click();
    await expectNoRawControl(admin, '[data-testid="invite-done"]');
    await expectNoRawControl(admin, '[data-testid="invite"]');
    await admin.context().close();
  });

  it('shows a decided option’s and its decider’s controls as markers in the transcript and on the Decisions page', async () => {
    const { world, browser } = suite;
    const person = await carol(world);
    const asked = await externalAsk(world);
    const answered = await fetch(
      `${world.clarion.url}/api/v1/clarification/${asked.pendingId}/respond`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${person.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          answers: [
            { question_id: 'q1', selected_options: ['q1_opt1'], custom_text: `and ${CONTROLS}` },
          ],
        }),
      },
    );
    expect(answered.status).toBe(200);

    const admin = await signedInPage(world, browser);
    await admin.goto(`${world.origin}/sessions/${encodeURIComponent(asked.sessionId)}`);
    const answeredLine = admin.getByText(/^Answered: /u).first();
    await answeredLine.waitFor(WAIT);
    await expect(answeredLine.textContent()).resolves.toContain('Keep ⟨U+202E⟩gnp.exe');
    await expectNoRawControl(admin, '[data-testid="decided-by"]');
    await expectNoRawControl(admin, 'main');

    await admin.goto(`${world.origin}/decisions`);
    await expectNoRawControl(admin, '[data-testid="decision-item"]');
    await expectNoRawControl(admin, '[data-testid="decision-log"]');
    await admin.context().close();
  });
});
