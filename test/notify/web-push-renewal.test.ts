/**
 * A browser that replaces its Web Push subscription (`pushsubscriptionchange`
 * on a phone) hands the new one to the server, end to end on SQLite and
 * PostgreSQL with a local push service: the channel made from the old one
 * takes the new one (same ID, same notices owed), so what asks next reaches
 * the phone; a renewal sent twice is answered alike; and a subscription no
 * channel of the caller's was made from (another person's, or one turned off)
 * is not found, and changes nothing. A push service that says the old
 * subscription is gone after the renewal (an attempt already on its way, or
 * its lane started before) deletes nothing: the channel holds the new one.
 */
import { describe, expect, it } from 'vitest';
import type { Driver } from '../../src/store/index.js';
import { WEB_PUSH_RENEWAL_PATH } from '../../src/wire/index.js';
import { eventually } from '../support/clarification-harness.js';
import { DRIVERS } from '../support/databases.js';
import { bearerApi } from '../support/in-process-server.js';
import { addChannel, SHIP_IT } from '../support/notify-options.js';
import { useNotifySuite } from '../support/notify-suite.js';
import { seedAdminSession } from '../support/seed.js';

const ADMIN_TOKEN = 'web-push-renewal-admin-token-012345';
const WAIT_MS = 20_000;

describe.each(DRIVERS)('a renewed Web Push subscription on %s', (driver: Driver) => {
  const suite = useNotifySuite(driver, ADMIN_TOKEN);

  it('moves its channel to the new subscription, and what asks next reaches it', async () => {
    const running = await suite.serve();
    const api = suite.api(running);
    const service = await suite.pushService();
    const settings = await api<{ web_push_public_key: string }>(
      'GET',
      '/api/v1/notification-settings',
    );
    const key = settings.json.web_push_public_key;
    const old = service.subscribe(key);
    const channelId = await addChannel(api, { kind: 'web_push', name: 'Phone', subscription: old });
    const renewed = service.subscribe(key);

    const body = { old_endpoint: old.endpoint, subscription: renewed };
    const first = await api<{ channel: { id: string; name: string } }>(
      'POST',
      WEB_PUSH_RENEWAL_PATH,
      body,
    );
    expect(first.status).toBe(200);
    expect(first.json.channel).toMatchObject({ id: channelId, name: 'Phone' });
    // The worker and the page may both send it: the second finds it done.
    const again = await api<{ channel: { id: string } }>('POST', WEB_PUSH_RENEWAL_PATH, body);
    expect(again.status).toBe(200);
    expect(again.json.channel.id).toBe(channelId);
    const listed = await api<{ channels: { id: string }[] }>(
      'GET',
      '/api/v1/notification-channels',
    );
    expect(listed.json.channels.map((channel) => channel.id)).toEqual([channelId]);

    running.clarification
      .ask(await seedAdminSession(running.store, 'after renewal'), SHIP_IT)
      .catch(() => undefined);
    await eventually(() => service.received.length === 1, WAIT_MS);
    const [received] = service.received;
    expect(received?.path).toBe(new URL(renewed.endpoint).pathname);
    expect(received?.payload.ok).toBe(true);
  });

  it('finds no channel for a subscription none of the caller’s was made from', async () => {
    // Bea is no admin: her loopback push service is hers to reach only as the admin allows.
    const running = await suite.serve({ notifyAllowedHosts: ['127.0.0.1'] });
    const admin = suite.api(running);
    const service = await suite.pushService();
    const key = (
      await admin<{ web_push_public_key: string }>('GET', '/api/v1/notification-settings')
    ).json.web_push_public_key;
    const old = service.subscribe(key);
    const channelId = await addChannel(admin, { kind: 'web_push', subscription: old });
    const created = await admin<{ token: string }>('POST', '/api/v1/users', { name: 'Bea' });
    expect(created.status).toBe(201);
    const bea = bearerApi(running.url, created.json.token);

    const body = { old_endpoint: old.endpoint, subscription: service.subscribe(key) };
    const stolen = await bea<{ code: string }>('POST', WEB_PUSH_RENEWAL_PATH, body);
    expect(stolen.status).toBe(404);
    expect(stolen.json.code).toBe('not_found');

    // Turned off (its channel deleted): a renewal must not bring it back.
    const deleted = await fetch(`${running.url}/api/v1/notification-channels/${channelId}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    await deleted.arrayBuffer();
    expect(deleted.status).toBe(204);
    const gone = await admin('POST', WEB_PUSH_RENEWAL_PATH, body);
    expect(gone.status).toBe(404);
    const listed = await admin<{ channels: unknown[] }>('GET', '/api/v1/notification-channels');
    expect(listed.json.channels).toEqual([]);
  });

  it('keeps a renewed channel when the old subscription is then said to be gone', async () => {
    const running = await suite.serve();
    const api = suite.api(running);
    const service = await suite.pushService();
    const key = (await api<{ web_push_public_key: string }>('GET', '/api/v1/notification-settings'))
      .json.web_push_public_key;
    const old = service.subscribe(key);
    const channelId = await addChannel(api, { kind: 'web_push', subscription: old });
    const renewed = service.subscribe(key);
    const oldPath = new URL(old.endpoint).pathname;
    // The old subscription's first notice hangs until the send times out; then it is gone.
    service.respond = (request, index) =>
      request.path !== oldPath ? { status: 201 } : index === 0 ? 'hang' : { status: 410 };

    running.clarification
      .ask(await seedAdminSession(running.store, 'first'), SHIP_IT)
      .catch(() => undefined);
    await eventually(() => service.received.length === 1, WAIT_MS);
    // A second notice waits behind the hanging one in the channel's lane.
    running.clarification
      .ask(await seedAdminSession(running.store, 'second'), SHIP_IT)
      .catch(() => undefined);
    await eventually(
      async () =>
        (
          await running.store.db
            .selectFrom('notification_outbox')
            .select('id')
            .where('channel_id', '=', channelId)
            .execute()
        ).length === 2,
      WAIT_MS,
    );
    const moved = await api('POST', WEB_PUSH_RENEWAL_PATH, {
      old_endpoint: old.endpoint,
      subscription: renewed,
    });
    expect(moved.status).toBe(200);

    const renewedPath = new URL(renewed.endpoint).pathname;
    await eventually(
      () => service.received.filter((push) => push.path === renewedPath).length === 2,
      WAIT_MS,
    );
    const listed = await api<{ channels: { id: string }[] }>(
      'GET',
      '/api/v1/notification-channels',
    );
    expect(listed.json.channels.map((channel) => channel.id)).toEqual([channelId]);
  });
});
