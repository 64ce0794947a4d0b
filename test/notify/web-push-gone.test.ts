/**
 * A Web Push subscription its push service says is gone (404 or 410: the
 * phone's browser dropped or replaced it), end to end on SQLite and
 * PostgreSQL with a local push service: the channel made from it is
 * deleted, so the device reads as off in Settings (and offers to turn on
 * again) instead of saying it gets notices, and no later notice is sent
 * to the dead subscription. Only the subscription tried is gone: a channel
 * renewed while that send was on its way holds another, and is kept, and
 * the notice that send carried goes to the new subscription.
 */
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { Driver } from '../../src/store/index.js';
import { WEB_PUSH_RENEWAL_PATH } from '../../src/wire/index.js';
import { eventually } from '../support/clarification-harness.js';
import { DRIVERS } from '../support/databases.js';
import { addChannel, noticesSettled, SHIP_IT } from '../support/notify-options.js';
import { useNotifySuite } from '../support/notify-suite.js';
import type { StubReply } from '../support/push-service.js';
import { seedAdminSession } from '../support/seed.js';

const ADMIN_TOKEN = 'web-push-gone-admin-token-01234567';
const WAIT_MS = 20_000;

describe.each(DRIVERS)('a Web Push subscription that is gone on %s', (driver: Driver) => {
  const suite = useNotifySuite(driver, ADMIN_TOKEN);

  it.each([404, 410])('deletes its channel once its push service answers %i', async (status) => {
    const running = await suite.serve();
    const api = suite.api(running);
    const service = await suite.pushService();
    const settings = await api<{ web_push_public_key: string }>(
      'GET',
      '/api/v1/notification-settings',
    );
    const subscription = service.subscribe(settings.json.web_push_public_key);
    const channelId = await addChannel(api, { kind: 'web_push', name: 'Phone', subscription });
    service.respond = () => ({ status });
    // The owner's open Settings, on another device: it hears the channel went.
    const socket = new WebSocket(`${running.url.replace(/^http/, 'ws')}/api/v1/events`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    const frames: string[] = [];
    socket.on('message', (data: Buffer) => {
      frames.push((JSON.parse(data.toString('utf8')) as { type: string }).type);
    });
    await once(socket, 'open');

    running.clarification
      .ask(await seedAdminSession(running.store, 'first'), SHIP_IT)
      .catch(() => undefined);
    await eventually(() => service.received.length === 1, WAIT_MS);
    const listed = async () =>
      (await api<{ channels: { id: string }[] }>('GET', '/api/v1/notification-channels')).json
        .channels;
    await eventually(async () => (await listed()).length === 0, WAIT_MS);
    expect(await listed()).not.toContainEqual(expect.objectContaining({ id: channelId }));
    await eventually(() => frames.includes('notifications_changed'), WAIT_MS);
    socket.close();

    // What asks next is sent nowhere: the subscription is not tried again.
    running.clarification
      .ask(await seedAdminSession(running.store, 'second'), SHIP_IT)
      .catch(() => undefined);
    await noticesSettled(running);
    expect(service.received).toHaveLength(1);
  });

  it('keeps a channel renewed while the send that hears its old subscription is gone was on its way', async () => {
    const running = await suite.serve();
    const api = suite.api(running);
    const service = await suite.pushService();
    const key = (await api<{ web_push_public_key: string }>('GET', '/api/v1/notification-settings'))
      .json.web_push_public_key;
    const old = service.subscribe(key);
    const channelId = await addChannel(api, { kind: 'web_push', subscription: old });
    const renewed = service.subscribe(key);
    const oldPath = new URL(old.endpoint).pathname;
    // The old subscription's answer is held until the channel is renewed; then it is gone.
    let answerOld: (reply: StubReply) => void = () => undefined;
    const oldAnswered = new Promise<StubReply>((resolve) => {
      answerOld = resolve;
    });
    service.respond = (request) => (request.path === oldPath ? oldAnswered : { status: 201 });

    running.clarification
      .ask(await seedAdminSession(running.store, 'first'), SHIP_IT)
      .catch(() => undefined);
    await eventually(() => service.received.length === 1, WAIT_MS);
    const moved = await api('POST', WEB_PUSH_RENEWAL_PATH, {
      old_endpoint: old.endpoint,
      subscription: renewed,
    });
    expect(moved.status).toBe(200);
    answerOld({ status: 410 });
    await noticesSettled(running);

    const listed = await api<{ channels: { id: string }[] }>(
      'GET',
      '/api/v1/notification-channels',
    );
    expect(listed.json.channels.map((channel) => channel.id)).toEqual([channelId]);
    // The notice the old subscription could not take goes to the new one, not lost with it.
    const renewedPath = new URL(renewed.endpoint).pathname;
    const atRenewed = () => service.received.filter((received) => received.path === renewedPath);
    expect(atRenewed()).toHaveLength(1);
    expect(atRenewed()[0]?.payload.ok).toBe(true);
    // What asks next reaches the device at its new subscription.
    running.clarification
      .ask(await seedAdminSession(running.store, 'second'), SHIP_IT)
      .catch(() => undefined);
    await eventually(() => atRenewed().length === 2, WAIT_MS);
  });
});
