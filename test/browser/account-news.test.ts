/**
 * Pages that list what no session event carries, kept live in Debian's
 * Chromium against a real server: a person's "Always allow" list on
 * Settings (a rule kept by an answer, or revoked, on one device shows on
 * their other one while it stays open), their notification channels and
 * settings and API tokens on Settings, and an admin's People page (a
 * workspace another admin creates or renames, which this admin is not in).
 * The frames that say so reach only those they are for: another person's
 * socket hears neither.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { UserInputView } from '../../src/user-input/index.js';
import {
  ADMIN_TOKEN,
  api,
  freshPage,
  useWorld,
  type CreatedTask,
  type World,
} from './support/harness.js';
import { WAIT } from './support/clarification-pages.js';
import { liveRoute } from './support/live-route.js';

interface NewUser {
  user: { id: string; name: string };
  token: string;
}

interface Watched {
  page: Page;
  /** The `type` of every frame the page's events socket received. */
  frames: string[];
}

async function as<T>(world: World, token: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${world.clarion.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok) {
    throw new Error(`${method} ${path}: ${String(response.status)} ${await response.text()}`);
  }
  return (response.status === 204 ? undefined : await response.json()) as T;
}

/**
 * Holds the page's reads of `path` (a congested network) until `release`:
 * every GET begun before `stopHolding`. `held` resolves once one is held, so
 * a change made then brings reads that answer before it.
 */
async function holdReads(page: Page, path: string) {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let seen = () => {};
  const held = new Promise<void>((resolve) => {
    seen = resolve;
  });
  let holding = true;
  await liveRoute(page, `**${path}`, async (route) => {
    if (route.request().method() !== 'GET') return route.continue();
    const hold = holding;
    const response = await route.fetch();
    if (hold) {
      seen();
      await released;
    }
    await route.fulfill({ response });
  });
  return {
    held,
    release,
    stopHolding: () => {
      holding = false;
    },
  };
}

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const found = await probe();
    if (found !== undefined) return found;
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`${what} within 30 s`);
}

describe('live lists of rules and people', () => {
  const started = useWorld();

  /** A page signed in as `userId`, live, whose events socket's frames are kept from the start. */
  async function watched(userId: string): Promise<Watched> {
    const { world, browser } = started;
    const url = await signInLink(world, userId);
    const page = await freshPage(browser, { viewport: { width: 1280, height: 900 } });
    const frames: string[] = [];
    page.on('websocket', (socket) => {
      socket.on('framereceived', ({ payload }) => {
        if (typeof payload !== 'string') return;
        frames.push((JSON.parse(payload) as { type: string }).type);
      });
    });
    await page.goto(`${world.origin}${new URL(url).pathname}${new URL(url).search}`);
    await page.waitForURL(`${world.origin}/`);
    await page.getByTestId('connection').and(page.locator('[data-state="live"]')).waitFor(WAIT);
    return { page, frames };
  }

  async function signInLink(world: World, userId: string): Promise<string> {
    return (
      await api<{ url: string }>(world, 'POST', '/api/v1/auth/sign-in-links', { user_id: userId })
    ).url;
  }

  async function member(name: string, isAdmin = false): Promise<NewUser> {
    const { world } = started;
    const created = await api<NewUser>(world, 'POST', '/api/v1/users', {
      name,
      is_admin: isAdmin,
    });
    const { workspaces } = await api<{ workspaces: { id: string }[] }>(
      world,
      'GET',
      '/api/v1/workspaces',
    );
    await api(world, 'POST', `/api/v1/workspaces/${workspaces[0]?.id ?? ''}/members`, {
      user_id: created.user.id,
      role: 'member',
    });
    return created;
  }

  it("shows a person's rule kept and revoked on their other open device, and nobody else's", async () => {
    const { world } = started;
    const bea = await member('Bea');
    const cy = await member('Cy');
    const desktop = await watched(bea.user.id);
    const phone = await watched(bea.user.id);
    const other = await watched(cy.user.id);
    for (const { page } of [desktop, phone, other]) {
      await page.getByTestId('settings-link').click();
      await page.getByTestId('consent-rules-empty').waitFor(WAIT);
    }

    // Bea answers "Always allow" elsewhere (her script, by REST): both her open pages list it.
    const created = await as<CreatedTask>(world, bea.token, 'POST', '/api/v1/tasks', {
      title: 'Rules live',
      prompt: '/permission',
    });
    const request = await until('a consent request', async () => {
      const { requests } = await as<{ requests: UserInputView[] }>(
        world,
        bea.token,
        'GET',
        '/api/v1/user-inputs',
      );
      return requests.find((each) => each.session_id === created.session.id);
    });
    await as(world, bea.token, 'POST', `/api/v1/user-inputs/${request.id}/respond`, {
      option_id: 'allow-always',
    });
    for (const { page } of [desktop, phone]) {
      await page.getByTestId('consent-rule').first().waitFor(WAIT);
    }

    // Revoked on the desktop: the phone lists it among the revoked, without being shown again.
    await desktop.page.getByTestId('consent-rule-revoke').click();
    await phone.page.getByTestId('consent-rule-revoked').first().waitFor(WAIT);
    await phone.page.getByTestId('consent-rules-empty').waitFor(WAIT);

    // The workspace the rule held in is renamed: her open list names it anew.
    const { workspaces } = await api<{ workspaces: { id: string; name: string }[] }>(
      world,
      'GET',
      '/api/v1/workspaces',
    );
    const home = workspaces[0];
    await api(world, 'PATCH', `/api/v1/workspaces/${home?.id ?? ''}`, { name: 'Renamed home' });
    await phone.page
      .getByTestId('consent-rule-revoked')
      .filter({ hasText: 'Renamed home' })
      .waitFor(WAIT);
    await api(world, 'PATCH', `/api/v1/workspaces/${home?.id ?? ''}`, { name: home?.name });

    // Cy's page heard nothing of Bea's rules, and still lists none.
    expect(desktop.frames).toContain('consent_rules_changed');
    expect(other.frames).not.toContain('consent_rules_changed');
    await expect(other.page.getByTestId('consent-rule').count()).resolves.toBe(0);
    await expect(other.page.getByTestId('consent-rule-revoked').count()).resolves.toBe(0);
    for (const { page } of [desktop, phone, other]) await page.context().close();
  });

  it('keeps the keyboard focus in "Always allow" once a rule is revoked there', async () => {
    const { world } = started;
    const di = await member('Di');
    const created = await as<CreatedTask>(world, di.token, 'POST', '/api/v1/tasks', {
      title: 'Rule to revoke',
      prompt: '/permission',
    });
    const request = await until('a consent request', async () => {
      const { requests } = await as<{ requests: UserInputView[] }>(
        world,
        di.token,
        'GET',
        '/api/v1/user-inputs',
      );
      return requests.find((each) => each.session_id === created.session.id);
    });
    await as(world, di.token, 'POST', `/api/v1/user-inputs/${request.id}/respond`, {
      option_id: 'allow-always',
    });
    const { page } = await watched(di.user.id);
    await page.getByTestId('settings-link').click();
    await page.getByTestId('consent-rule-revoke').focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('consent-rule-revoked').first().waitFor(WAIT);
    // The button went with its rule: the focus stays in the section, not on the page's body.
    const focused = () =>
      page.evaluate<string>(
        `(() => document.activeElement?.closest('[data-testid="consent-rules"]') ? 'section' : document.activeElement?.tagName ?? '')()`,
      );
    await expect.poll(focused, WAIT).toBe('section');
    await page.context().close();
  });

  it("shows a person's notification channels and settings changed elsewhere on their open Settings", async () => {
    const { world } = started;
    const ivy = await member('Ivy');
    const jo = await member('Jo');
    const desktop = await watched(ivy.user.id);
    const other = await watched(jo.user.id);
    for (const { page } of [desktop, other]) {
      await page.getByTestId('settings-link').click();
      await page.getByTestId('notification-channels-empty').waitFor(WAIT);
    }
    const section = desktop.page.getByTestId('notification-settings');
    const includeQuestion = section.getByTestId('notification-include-question');
    expect(await includeQuestion.isChecked()).toBe(false);

    // On her phone she adds a channel and opts in to the question: the open desktop shows both.
    const { channel } = await as<{ channel: { id: string } }>(
      world,
      ivy.token,
      'POST',
      '/api/v1/notification-channels',
      { kind: 'webhook', url: 'https://relay.example/ivy', name: 'Ivy’s relay' },
    );
    await as(world, ivy.token, 'PUT', '/api/v1/notification-settings', { include_question: true });
    const relay = section.getByTestId('notification-channel').filter({ hasText: 'Ivy’s relay' });
    await relay.waitFor(WAIT);
    await expect.poll(() => includeQuestion.isChecked(), WAIT).toBe(true);
    await as(world, ivy.token, 'DELETE', `/api/v1/notification-channels/${channel.id}`);
    await relay.waitFor({ ...WAIT, state: 'detached' });

    expect(desktop.frames).toContain('notifications_changed');
    expect(other.frames).not.toContain('notifications_changed');
    for (const { page } of [desktop, other]) await page.context().close();
  });

  it('shows the newest channel list when an older read of it answers last', async () => {
    const { world } = started;
    const ola = await member('Ola');
    const { page } = await watched(ola.user.id);
    await page.getByTestId('settings-link').click();
    await page.getByTestId('notification-channels-empty').waitFor(WAIT);
    const listed = page.getByTestId('notification-channel').filter({ hasText: 'Ola’s relay' });

    // The read that follows the channel's adding is slow to answer (a congested network)…
    const channelsPath = '/api/v1/notification-channels';
    const reads = await holdReads(page, channelsPath);
    const { channel } = await as<{ channel: { id: string } }>(
      world,
      ola.token,
      'POST',
      channelsPath,
      {
        kind: 'webhook',
        url: 'https://relay.example/ola',
        name: 'Ola’s relay',
      },
    );
    await reads.held;
    // …and it is removed meanwhile: the read that follows answers first, without it.
    reads.stopHolding();
    const answered = page.waitForResponse((response) => response.url().endsWith(channelsPath));
    await as(world, ola.token, 'DELETE', `${channelsPath}/${channel.id}`);
    await answered;
    reads.release();
    await page.waitForResponse((response) => response.url().endsWith(channelsPath));
    // The older list, which still named it, is not shown over the newer one.
    await page.waitForTimeout(500);
    expect(await listed.count()).toBe(0);
    await page.context().close();
  });

  it("shows a person's API tokens made or revoked elsewhere on their open Settings", async () => {
    const { world } = started;
    const lee = await member('Lee');
    const mo = await member('Mo');
    const desktop = await watched(lee.user.id);
    const other = await watched(mo.user.id);
    for (const { page } of [desktop, other]) {
      await page.getByTestId('settings-link').click();
      await page.getByTestId('api-tokens').waitFor(WAIT);
    }
    const listed = desktop.page.getByTestId('api-token').filter({ hasText: 'CI runner' });

    // Made on her laptop's terminal, then revoked there: the open page follows both.
    const { token } = await as<{ token: { id: string } }>(
      world,
      lee.token,
      'POST',
      '/api/v1/tokens',
      { name: 'CI runner' },
    );
    await listed.waitFor(WAIT);
    await as(world, lee.token, 'DELETE', `/api/v1/tokens/${token.id}`);
    await listed.waitFor({ ...WAIT, state: 'detached' });

    expect(desktop.frames).toContain('tokens_changed');
    expect(other.frames).not.toContain('tokens_changed');
    for (const { page } of [desktop, other]) await page.context().close();
  });

  it('shows the newest token list when an older read of it answers last', async () => {
    const { world } = started;
    const nia = await member('Nia');
    const { page } = await watched(nia.user.id);
    await page.getByTestId('settings-link').click();
    await page.getByTestId('api-tokens').waitFor(WAIT);
    const listed = page.getByTestId('api-token').filter({ hasText: 'Night build' });

    // The read that follows the token's making is slow to answer (a congested network)…
    const reads = await holdReads(page, '/api/v1/tokens');
    const { token } = await as<{ token: { id: string } }>(
      world,
      nia.token,
      'POST',
      '/api/v1/tokens',
      { name: 'Night build' },
    );
    await reads.held;
    // …and the token is revoked meanwhile: the read that follows answers first, without it.
    reads.stopHolding();
    const answered = page.waitForResponse((response) => response.url().endsWith('/api/v1/tokens'));
    await as(world, nia.token, 'DELETE', `/api/v1/tokens/${token.id}`);
    await answered;
    reads.release();
    await page.waitForResponse((response) => response.url().endsWith('/api/v1/tokens'));
    // The older list, which still named it, is not shown over the newer one.
    await page.waitForTimeout(500);
    expect(await listed.count()).toBe(0);
    await page.context().close();
  });

  it('keeps the keyboard focus in the list when a token it was on is revoked elsewhere', async () => {
    const { world } = started;
    const kim = await member('Kim');
    for (const name of ['Build bot', 'Deploy bot']) {
      await as(world, kim.token, 'POST', '/api/v1/tokens', { name });
    }
    const { page } = await watched(kim.user.id);
    await page.getByTestId('settings-link').click();
    const row = (name: string) => page.getByTestId('api-token').filter({ hasText: name });
    await row('Deploy bot').waitFor(WAIT);
    const { tokens } = await as<{ tokens: { id: string; name: string }[] }>(
      world,
      kim.token,
      'GET',
      '/api/v1/tokens',
    );
    const build = tokens.find((token) => token.name === 'Build bot');

    // She is about to revoke it from the keyboard when her terminal revokes it first.
    await row('Build bot').getByRole('button', { name: 'Revoke the token Build bot' }).focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('api-token-revoke-confirm').waitFor(WAIT);
    await page.getByTestId('api-token-revoke-confirm').getByRole('button').first().focus();
    await as(world, kim.token, 'DELETE', `/api/v1/tokens/${build?.id ?? ''}`);
    await row('Build bot').waitFor({ ...WAIT, state: 'detached' });

    // The focus went with the row: it lands on a row still listed, not on the page's body.
    const focused = () =>
      page.evaluate<string>(
        `(() => document.activeElement?.closest('[data-testid="api-token"]') ? 'row' : document.activeElement?.tagName ?? '')()`,
      );
    await expect.poll(focused, WAIT).toBe('row');
    await page.context().close();
  });

  it("shows another admin's new and renamed workspace on an admin's open People page", async () => {
    const { world } = started;
    const ada = await member('Ada', true);
    const dan = await member('Dan', true);
    const eve = await member('Eve');
    const pages = [
      await watched(ada.user.id),
      await watched(dan.user.id),
      await watched(eve.user.id),
    ];
    const [first, second, other] = pages as [Watched, Watched, Watched];
    for (const { page } of pages) {
      await page.getByTestId('people-link').click();
      await page.getByTestId('people').waitFor(WAIT);
    }

    // Another admin (the world's, by REST) makes a workspace neither Ada nor Dan is in: both pages show it.
    const workspace = (
      await as<{ workspace: { id: string } }>(world, ADMIN_TOKEN, 'POST', '/api/v1/workspaces', {
        name: 'Night shift',
      })
    ).workspace.id;
    const section = (page: Page) =>
      page.locator(`[data-testid="workspace"][data-workspace-id="${workspace}"]`);
    for (const { page } of [first, second]) {
      await section(page).getByRole('heading', { name: 'Night shift', exact: true }).waitFor(WAIT);
    }
    await as(world, ADMIN_TOKEN, 'PATCH', `/api/v1/workspaces/${workspace}`, {
      name: 'Day shift',
    });
    for (const { page } of [first, second]) {
      await section(page).getByRole('heading', { name: 'Day shift', exact: true }).waitFor(WAIT);
    }

    // Eve is no admin: her socket heard nothing of it, and her page does not list it.
    expect(first.frames).toContain('people_changed');
    expect(other.frames).not.toContain('people_changed');
    await expect(section(other.page).count()).resolves.toBe(0);
    for (const { page } of pages) await page.context().close();
  });

  it("shows a member added, removed or deleted in a person's workspace on their open People page", async () => {
    const { world } = started;
    const { workspace } = await api<{ workspace: { id: string } }>(
      world,
      'POST',
      '/api/v1/workspaces',
      { name: 'Small team' },
    );
    const fay = await api<NewUser>(world, 'POST', '/api/v1/users', { name: 'Fay' });
    const gus = await api<NewUser>(world, 'POST', '/api/v1/users', { name: 'Gus' });
    const hal = await member('Hal');
    await api(world, 'POST', `/api/v1/workspaces/${workspace.id}/members`, {
      user_id: fay.user.id,
    });
    const mine = await watched(fay.user.id);
    const other = await watched(hal.user.id);
    for (const { page } of [mine, other]) {
      await page.getByTestId('people-link').click();
      await page.getByTestId('people').waitFor(WAIT);
    }
    const team = mine.page.locator(
      `[data-testid="workspace"][data-workspace-id="${workspace.id}"]`,
    );
    const gusRow = team.getByTestId('member').filter({ hasText: 'Gus' });
    await team.getByTestId('member').filter({ hasText: 'Fay' }).waitFor(WAIT);

    // An admin adds Gus elsewhere: Fay's open page lists him, then not once he is removed.
    await api(world, 'POST', `/api/v1/workspaces/${workspace.id}/members`, {
      user_id: gus.user.id,
    });
    await gusRow.waitFor(WAIT);
    await api(world, 'DELETE', `/api/v1/workspaces/${workspace.id}/members/${gus.user.id}`);
    await gusRow.waitFor({ ...WAIT, state: 'detached' });
    // Back, then deleted: gone from her page too.
    await api(world, 'POST', `/api/v1/workspaces/${workspace.id}/members`, {
      user_id: gus.user.id,
    });
    await gusRow.waitFor(WAIT);
    await api(world, 'DELETE', `/api/v1/users/${gus.user.id}`);
    await gusRow.waitFor({ ...WAIT, state: 'detached' });

    // Hal is in no part of it: his socket heard nothing.
    expect(mine.frames).toContain('people_changed');
    expect(other.frames).not.toContain('people_changed');
    for (const { page } of [mine, other]) await page.context().close();
  });

  it('shows the newest member list when an older read of it answers last', async () => {
    const { world } = started;
    const { workspace } = await api<{ workspace: { id: string } }>(
      world,
      'POST',
      '/api/v1/workspaces',
      { name: 'Late team' },
    );
    const pia = await api<NewUser>(world, 'POST', '/api/v1/users', { name: 'Pia' });
    const quin = await api<NewUser>(world, 'POST', '/api/v1/users', { name: 'Quin' });
    await api(world, 'POST', `/api/v1/workspaces/${workspace.id}/members`, {
      user_id: pia.user.id,
    });
    const { page } = await watched(pia.user.id);
    await page.getByTestId('people-link').click();
    const team = page.locator(`[data-testid="workspace"][data-workspace-id="${workspace.id}"]`);
    await team.getByTestId('member').filter({ hasText: 'Pia' }).waitFor(WAIT);
    const quinRow = team.getByTestId('member').filter({ hasText: 'Quin' });

    // The reads that follow Quin's adding are slow to answer (a congested network)…
    let release: (() => void) | undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let holding = true;
    let heldReads = 0;
    let heldRead: (() => void) | undefined;
    const heldSeen = new Promise<void>((resolve) => {
      heldRead = resolve;
    });
    const membersPath = `/api/v1/workspaces/${workspace.id}/members`;
    await liveRoute(page, `**${membersPath}`, async (route) => {
      if (route.request().method() !== 'GET') return route.continue();
      const hold = holding;
      const response = await route.fetch();
      if (hold) {
        heldReads++;
        heldRead?.();
        await held;
      }
      await route.fulfill({ response });
    });
    await api(world, 'POST', membersPath, { user_id: quin.user.id });
    await heldSeen;
    // …and he is removed meanwhile: the reads that follow answer first, without him.
    holding = false;
    const answered = page.waitForResponse((response) => response.url().endsWith(membersPath));
    await api(world, 'DELETE', `${membersPath}/${quin.user.id}`);
    await answered;
    release?.();
    await page.waitForResponse((response) => response.url().endsWith(membersPath));
    // The older list, which still named him, is not shown over the newer one.
    await page.waitForTimeout(500);
    expect(heldReads).toBeGreaterThan(0);
    expect(await quinRow.count()).toBe(0);
    await page.context().close();
  });
});
