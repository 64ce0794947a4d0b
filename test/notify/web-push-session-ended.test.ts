/**
 * A device's Web Push channel lives as long as the browser sign-in that
 * turned it on (or last renewed it), end to end on SQLite and PostgreSQL
 * with a local push service: when that sign-in ends anywhere (signed out
 * from another device, signed out here, replaced by another person's
 * sign-in, expired and pruned) the channel goes with it and what asks next
 * reaches only the channels that remain; an expired sign-in the prune has
 * not reached yet is sent nothing meanwhile. A channel made or renewed with a
 * bearer token belongs to no browser and stays; a sign-in of the same
 * person over the device's session keeps the channel, now the new
 * session's; a renewal from a browser makes the channel that browser's.
 */
import { describe, expect, it } from 'vitest';
import { startSpentCredentialPruning } from '../../src/auth/index.js';
import { silentLogger } from '../../src/observability/logger.js';
import type { RunningServer } from '../../src/server.js';
import type { Driver } from '../../src/store/index.js';
import { systemTimers } from '../../src/support/index.js';
import { WEB_PUSH_RENEWAL_PATH } from '../../src/wire/index.js';
import {
  browserSignIn,
  openSignInLink,
  redeemSignIn,
  sendTo,
  sessionCookieSet,
} from '../support/browser-sign-in.js';
import { eventually } from '../support/clarification-harness.js';
import { DRIVERS } from '../support/databases.js';
import { addChannel, FAST_NOTIFY, noticesSettled, SHIP_IT } from '../support/notify-options.js';
import { useNotifySuite } from '../support/notify-suite.js';
import type { PushServiceStub, PushSubscriptionKeys } from '../support/push-service.js';
import { seedAdminSession } from '../support/seed.js';

const ADMIN_TOKEN = 'web-push-session-ended-admin-012345';
const WAIT_MS = 20_000;
const FAST_POLL_MS = FAST_NOTIFY.tunables?.pollIntervalMs ?? 150;

describe.each(DRIVERS)("a device's Web Push channel and its sign-in on %s", (driver: Driver) => {
  const suite = useNotifySuite(driver, ADMIN_TOKEN);

  interface World {
    readonly running: RunningServer;
    readonly service: PushServiceStub;
    readonly key: string;
  }

  async function world(): Promise<World> {
    const running = await suite.serve();
    const service = await suite.pushService();
    const settings = await suite.api(running)<{ web_push_public_key: string }>(
      'GET',
      '/api/v1/notification-settings',
    );
    return { running, service, key: settings.json.web_push_public_key };
  }

  /** A fresh sign-in link for `userId` (the admin's own without one). */
  async function link({ running }: World, userId?: string): Promise<string> {
    const minted = await suite.api(running)<{ url: string }>(
      'POST',
      '/api/v1/auth/sign-in-links',
      userId === undefined ? {} : { user_id: userId },
    );
    expect(minted.status).toBe(201);
    return minted.json.url;
  }

  /** A browser signed in on a fresh link: its session cookie. */
  async function browser(w: World, userId?: string): Promise<string> {
    const cookie = await browserSignIn(sendTo(w.running.url), await link(w, userId), w.running.url);
    if (cookie === undefined) throw new Error('the sign-in failed');
    return cookie;
  }

  /** A same-origin call of the web app signed in with `cookie`. */
  async function fromPage(
    { running }: World,
    cookie: string,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; json: unknown }> {
    const response = await fetch(`${running.url}${path}`, {
      method,
      headers: {
        origin: running.url,
        cookie: `clarion_session=${cookie}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, json: text === '' ? null : (JSON.parse(text) as unknown) };
  }

  /** The device turns notifications on, as the web app does: its channel's ID. */
  async function turnOn(w: World, cookie: string, subscription: PushSubscriptionKeys) {
    const created = await fromPage(w, cookie, 'POST', '/api/v1/notification-channels', {
      kind: 'web_push',
      name: 'Phone',
      subscription,
    });
    expect(created.status).toBe(201);
    return (created.json as { channel: { id: string } }).channel.id;
  }

  async function channelIds({ running }: World): Promise<string[]> {
    const listed = await suite.api(running)<{ channels: { id: string }[] }>(
      'GET',
      '/api/v1/notification-channels',
    );
    return listed.json.channels.map((channel) => channel.id).sort();
  }

  /** Asks once and waits until every notice owed is settled: the paths pushed to. */
  async function pushedPaths({ running, service }: World, expected: number): Promise<string[]> {
    running.clarification
      .ask(await seedAdminSession(running.store, 'after the sign-in ended'), SHIP_IT)
      .catch(() => undefined);
    await eventually(() => service.received.length >= expected, WAIT_MS);
    await noticesSettled(running);
    return service.received.map((push) => push.path);
  }

  const pathOf = (subscription: PushSubscriptionKeys) => new URL(subscription.endpoint).pathname;

  it('goes when another device signs it out, and the next ask is not pushed to it', async () => {
    const w = await world();
    const phone = await browser(w);
    const laptop = await browser(w);
    const phoneSubscription = w.service.subscribe(w.key);
    const deskSubscription = w.service.subscribe(w.key);
    const phoneChannel = await turnOn(w, phone, phoneSubscription);
    // Made with a bearer token: no browser's, so no sign-out ends it.
    const deskChannel = await addChannel(suite.api(w.running), {
      kind: 'web_push',
      name: 'Desk',
      subscription: deskSubscription,
    });
    expect(await channelIds(w)).toEqual([phoneChannel, deskChannel].sort());

    const ended = await fromPage(w, laptop, 'POST', '/api/v1/auth/sign-out-others');
    expect(ended.json).toEqual({ ended: 1 });

    expect(await channelIds(w)).toEqual([deskChannel]);
    expect(await pushedPaths(w, 1)).toEqual([pathOf(deskSubscription)]);
  });

  it('goes when the device signs out, even if the page could not turn it off', async () => {
    const w = await world();
    const phone = await browser(w);
    await turnOn(w, phone, w.service.subscribe(w.key));

    const signedOut = await fromPage(w, phone, 'POST', '/api/v1/auth/sign-out');
    expect(signedOut.status).toBe(204);
    expect(await channelIds(w)).toEqual([]);
  });

  it('goes once its expired sign-in is pruned', async () => {
    const w = await world();
    const phone = await browser(w);
    const laptop = await browser(w);
    await turnOn(w, phone, w.service.subscribe(w.key));
    const laptopChannel = await turnOn(w, laptop, w.service.subscribe(w.key));
    // The phone's sign-in ran out: it is the older of the two.
    const [phoneToken] = await w.running.store.db
      .selectFrom('api_tokens')
      .select('id')
      .where('kind', '=', 'browser')
      .orderBy('created_at')
      .limit(1)
      .execute();
    await w.running.store.db
      .updateTable('api_tokens')
      .set({ expires_at: '2000-01-01T00:00:00.000000000Z' })
      .where('id', '=', phoneToken?.id ?? '')
      .execute();

    const pruning = startSpentCredentialPruning({
      store: w.running.store,
      timers: systemTimers,
      logger: silentLogger,
      intervalMs: 60 * 60 * 1000,
    });
    try {
      await pruning.pass();
    } finally {
      await pruning.stop();
    }
    expect(await channelIds(w)).toEqual([laptopChannel]);
  });

  it('hears nothing once its sign-in expired, before the prune removes it', async () => {
    const w = await world();
    const phone = await browser(w);
    const phoneSubscription = w.service.subscribe(w.key);
    const deskSubscription = w.service.subscribe(w.key);
    const phoneChannel = await turnOn(w, phone, phoneSubscription);
    const deskChannel = await addChannel(suite.api(w.running), {
      kind: 'web_push',
      name: 'Desk',
      subscription: deskSubscription,
    });
    // The phone's sign-in ran out; its row waits for the next prune (every 10 minutes).
    await w.running.store.db
      .updateTable('api_tokens')
      .set({ expires_at: '2000-01-01T00:00:00.000000000Z' })
      .where('kind', '=', 'browser')
      .execute();

    w.running.clarification
      .ask(await seedAdminSession(w.running.store, 'after the sign-in expired'), SHIP_IT)
      .catch(() => undefined);
    await eventually(() => w.service.received.length >= 1, WAIT_MS);
    // The desk's lane and the phone's would start in the same poll: a few more go by.
    await new Promise((resolve) => setTimeout(resolve, 5 * FAST_POLL_MS));
    expect(w.service.received.map((push) => push.path)).toEqual([pathOf(deskSubscription)]);
    const phoneRows = await w.running.store.db
      .selectFrom('notification_outbox')
      .select(['attempts', 'delivered_at'])
      .where('channel_id', '=', phoneChannel)
      .execute();
    expect(phoneRows.length).toBeGreaterThan(0);
    expect(phoneRows.every((row) => row.attempts === 0 && row.delivered_at === null)).toBe(true);

    // The prune then takes the channel and what it owed.
    const pruning = startSpentCredentialPruning({
      store: w.running.store,
      timers: systemTimers,
      logger: silentLogger,
      intervalMs: 60 * 60 * 1000,
    });
    try {
      await pruning.pass();
    } finally {
      await pruning.stop();
    }
    expect(await channelIds(w)).toEqual([deskChannel]);
  });

  it("stays with the same person's new sign-in there, and goes with another's", async () => {
    const w = await world();
    const send = sendTo(w.running.url);
    const phone = await browser(w);
    const laptop = await browser(w);
    const phoneChannel = await turnOn(w, phone, w.service.subscribe(w.key));

    // The same person signs in again on the phone: its earlier session ends, its channel stays.
    const again = await openSignInLink(send, await link(w));
    const renewed = await redeemSignIn(send, again ?? '', {
      origin: w.running.url,
      cookie: phone,
    });
    expect(renewed.status).toBe(200);
    expect(sessionCookieSet(renewed)).toBeDefined();
    expect(await channelIds(w)).toEqual([phoneChannel]);

    // The channel is the new session's: ending that one ends it.
    const ended = await fromPage(w, laptop, 'POST', '/api/v1/auth/sign-out-others');
    expect(ended.json).toEqual({ ended: 1 });
    expect(await channelIds(w)).toEqual([]);

    // A phone handed on: Bo signs in over the admin's session, which ends, and its channel.
    const handedOn = await browser(w);
    await turnOn(w, handedOn, w.service.subscribe(w.key));
    const bo = await suite.api(w.running)<{ user: { id: string } }>('POST', '/api/v1/users', {
      name: 'Bo',
    });
    const bos = await openSignInLink(send, await link(w, bo.json.user.id));
    const switched = await redeemSignIn(send, bos ?? '', {
      origin: w.running.url,
      cookie: handedOn,
      switchAccount: true,
    });
    expect(switched.status).toBe(200);
    expect(await channelIds(w)).toEqual([]);
  });

  it('follows a renewal made from a browser, and keeps one made with a token', async () => {
    const w = await world();
    const phone = await browser(w);
    const laptop = await browser(w);
    const first = w.service.subscribe(w.key);
    const second = w.service.subscribe(w.key);
    const third = w.service.subscribe(w.key);
    // Made with a token, then renewed on the phone: the phone's from then on.
    const channelId = await addChannel(suite.api(w.running), {
      kind: 'web_push',
      subscription: first,
    });
    const fromPhone = await fromPage(w, phone, 'POST', WEB_PUSH_RENEWAL_PATH, {
      old_endpoint: first.endpoint,
      subscription: second,
    });
    expect(fromPhone.status).toBe(200);
    // A renewal with a token says nothing of the browser: the channel stays the phone's.
    const withToken = await suite.api(w.running)('POST', WEB_PUSH_RENEWAL_PATH, {
      old_endpoint: second.endpoint,
      subscription: third,
    });
    expect(withToken.status).toBe(200);
    expect(await channelIds(w)).toEqual([channelId]);

    await fromPage(w, laptop, 'POST', '/api/v1/auth/sign-out-others');
    expect(await channelIds(w)).toEqual([]);
  });
});
