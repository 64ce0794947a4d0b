/**
 * The channel and settings routes against hostile input: every bad body is a
 * clear 4xx and stores nothing; a person sees and touches only their own
 * channels; the per-person limit holds; the admin's loopback and LAN targets
 * are allowed (another person's are not: `private-targets.test.ts`).
 */
import { createECDH, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_CHANNELS_PER_USER } from '../../src/wire/index.js';
import { DRIVERS } from '../support/databases.js';
import {
  bearerApi,
  startInProcessServer,
  type ApiCall,
  type InProcessServer,
} from '../support/in-process-server.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { wireCheckedApi } from '../support/wire-checked-api.js';

const ADMIN_TOKEN = 'channels-admin-token-0123456789abcdef';

/** A browser's subscription keys: a P-256 point and a 16-byte auth secret. */
const PUSH_KEYS = {
  p256dh: createECDH('prime256v1').generateKeys().toString('base64url'),
  auth: randomBytes(16).toString('base64url'),
};

const HOSTILE: readonly [string, unknown][] = [
  ['an unknown kind', { kind: 'pager', url: 'https://example.com/' }],
  ['no kind', { url: 'https://example.com/' }],
  ['a javascript: URL', { kind: 'webhook', url: 'javascript:alert(1)' }],
  ['a file: URL', { kind: 'ntfy', url: 'file:///etc/passwd' }],
  ['an ftp: URL', { kind: 'slack', url: 'ftp://example.com/x' }],
  ['a relative URL', { kind: 'webhook', url: '/api/v1/users' }],
  ['a URL that is not one', { kind: 'webhook', url: 'http://' }],
  ['a huge URL', { kind: 'webhook', url: `https://example.com/${'a'.repeat(5_000)}` }],
  ['a huge secret', { kind: 'webhook', url: 'https://example.com/', secret: 'x'.repeat(5_000) }],
  ['a short secret', { kind: 'webhook', url: 'https://example.com/', secret: 'short' }],
  [
    'a secret with spaces',
    { kind: 'webhook', url: 'https://example.com/', secret: 'a b c d e f g h i j' },
  ],
  ['a huge name', { kind: 'slack', url: 'https://example.com/', name: 'n'.repeat(1_000) }],
  ['an unknown field', { kind: 'slack', url: 'https://example.com/', admin: true }],
  ['a NUL in the name', { kind: 'slack', url: 'https://example.com/', name: 'a\u0000b' }],
  [
    'a push endpoint over plain http',
    {
      kind: 'web_push',
      subscription: { endpoint: 'http://push.example.com/x', keys: PUSH_KEYS },
    },
  ],
  [
    'a push key that is no P-256 point',
    {
      kind: 'web_push',
      subscription: {
        endpoint: 'https://push.example.com/x',
        keys: { ...PUSH_KEYS, p256dh: 'AAAA' },
      },
    },
  ],
  [
    'a push auth secret of the wrong length',
    {
      kind: 'web_push',
      subscription: {
        endpoint: 'https://push.example.com/x',
        keys: { ...PUSH_KEYS, auth: 'BBBB' },
      },
    },
  ],
  ['an array', [{ kind: 'slack', url: 'https://example.com/' }]],
  ['null', null],
];

/** URLs no send could use: each is refused with the field and the reason named. */
const UNSENDABLE: readonly [string, unknown, string, RegExp][] = [
  [
    'a webhook URL with a username and password',
    { kind: 'webhook', url: 'https://user:pw@relay.lan/h' },
    'url',
    /username or password/,
  ],
  [
    'a webhook URL with a username only',
    { kind: 'webhook', url: 'https://token@relay.lan/h' },
    'url',
    /username or password/,
  ],
  [
    'an ntfy URL with a password',
    { kind: 'ntfy', url: 'https://:pw@ntfy.sh/clarion' },
    'url',
    /username or password/,
  ],
  [
    'a Slack URL with credentials',
    { kind: 'slack', url: 'https://u:p@hooks.slack.test/x' },
    'url',
    /username or password/,
  ],
  [
    'a push endpoint with credentials',
    {
      kind: 'web_push',
      subscription: { endpoint: 'https://u:p@push.example.com/x', keys: PUSH_KEYS },
    },
    'subscription.endpoint',
    /username or password/,
  ],
  ['an ntfy URL without a topic', { kind: 'ntfy', url: 'https://ntfy.sh/' }, 'url', /topic/],
  ['an ntfy server alone', { kind: 'ntfy', url: 'https://ntfy.sh' }, 'url', /topic/],
  [
    'an ntfy server with only a query',
    { kind: 'ntfy', url: 'https://ntfy.sh/?auth=x' },
    'url',
    /topic/,
  ],
  [
    'an ntfy topic ntfy refuses',
    { kind: 'ntfy', url: 'https://ntfy.sh/my%20topic' },
    'url',
    /topic/,
  ],
  [
    'an ntfy topic too long',
    { kind: 'ntfy', url: `https://ntfy.sh/${'t'.repeat(65)}` },
    'url',
    /topic/,
  ],
];

describe.each(DRIVERS)('the notification routes on %s', (driver) => {
  let clarion: InProcessServer;
  let api: ApiCall;
  let other: ApiCall;
  let otherToken = '';
  let receiver: Receiver;

  beforeAll(async () => {
    clarion = await startInProcessServer(driver, ADMIN_TOKEN);
    api = clarion.api;
    const created = await api<{ token: string }>('POST', '/api/v1/users', { name: 'Bob' });
    expect(created.status).toBe(201);
    otherToken = created.json.token;
    other = bearerApi(clarion.server.url, otherToken);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await clarion.dispose();
  });

  const count = async () =>
    (await api<{ channels: unknown[] }>('GET', '/api/v1/notification-channels')).json.channels
      .length;

  it.each(HOSTILE)('refuses %s with a 4xx and stores nothing', async (_label, body) => {
    const before = await count();
    const reply = await api('POST', '/api/v1/notification-channels', body);
    expect(reply.status).toBeGreaterThanOrEqual(400);
    expect(reply.status).toBeLessThan(500);
    expect(reply.json).toMatchObject({ code: expect.stringMatching(/invalid_/) as unknown });
    expect(await count()).toBe(before);
  });

  it.each(UNSENDABLE)(
    'refuses %s with a 400 naming the field, and stores nothing',
    async (_label, body, path, why) => {
      const before = await count();
      const reply = await api<{ code: string; details: { path: string; message: string }[] }>(
        'POST',
        '/api/v1/notification-channels',
        body,
      );
      expect(reply.status).toBe(400);
      expect(reply.json.code).toBe('invalid_request');
      expect(reply.json.details).toEqual([
        { path, message: expect.stringMatching(why) as unknown },
      ]);
      // The reply never echoes a password back.
      expect(JSON.stringify(reply.json)).not.toMatch(/:pw@|:p@/);
      expect(await count()).toBe(before);
    },
  );

  it('refuses a body that is not JSON', async () => {
    const response = await fetch(`${clarion.server.url}/api/v1/notification-channels`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'text/plain' },
      body: 'kind=webhook',
    });
    expect(response.status).toBe(415);
  });

  it.each([
    [{ reminder_delay_s: -1 }],
    [{ reminder_delay_s: 10_000_000 }],
    [{ reminder_delay_s: 1.5 }],
    [{ include_question: 'yes' }],
    [{ answer_links: 0 }],
    [{ other: 1 }],
  ])('refuses settings %j and keeps the old ones', async (body) => {
    const reply = await api('PUT', '/api/v1/notification-settings', body);
    expect(reply.status).toBe(400);
    const settings = await api('GET', '/api/v1/notification-settings');
    expect(settings.json).toEqual({
      settings: { reminder_delay_s: 600, include_question: false, answer_links: true },
      // The server's VAPID public key: an uncompressed P-256 point in base64url.
      web_push_public_key: expect.stringMatching(/^[A-Za-z0-9_-]{87}$/) as unknown,
    });
  });

  it('keeps channels personal: another person’s is not found, and never listed', async () => {
    const created = await api<{ channel: { id: string; target: string; kind: string } }>(
      'POST',
      '/api/v1/notification-channels',
      {
        kind: 'ntfy',
        url: `${receiver.url}/topic?auth=secret`,
        access_token: 'tk_0123456789abcdef',
      },
    );
    expect(created.status).toBe(201);
    // Loopback is allowed; the view shows host and path, never the query or the token.
    expect(created.json.channel.target).toBe(`${new URL(receiver.url).host}/topic`);
    expect(JSON.stringify(created.json)).not.toContain('tk_0123456789abcdef');
    const id = created.json.channel.id;

    expect((await other('GET', '/api/v1/notification-channels')).json).toEqual({ channels: [] });
    expect((await other('DELETE', `/api/v1/notification-channels/${id}`)).status).toBe(404);
    expect((await other('POST', `/api/v1/notification-channels/${id}/test`)).status).toBe(404);
    expect((await api('POST', `/api/v1/notification-channels/%00/test`)).status).toBe(404);

    const tested = await api('POST', `/api/v1/notification-channels/${id}/test`);
    expect(tested).toEqual({
      status: 200,
      json: { delivered: true, status: 200, error: null, error_code: null },
    });
    // The query is kept, never dropped: ntfy reads `?auth=` on the JSON publish too.
    expect(receiver.received.at(-1)?.path).toBe('/?auth=secret');
    expect(JSON.parse(receiver.received.at(-1)?.body ?? '{}')).toMatchObject({
      topic: 'topic',
      message: 'A test notification from Clarion',
    });

    const deleted = await fetch(`${clarion.server.url}/api/v1/notification-channels/${id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(deleted.status).toBe(204);
    expect((await api('DELETE', `/api/v1/notification-channels/${id}`)).status).toBe(404);
  });

  it('reports a failing test without storing anything', async () => {
    const created = await other<{ channel: { id: string } }>(
      'POST',
      '/api/v1/notification-channels',
      {
        kind: 'slack',
        // `.invalid` never resolves (RFC 6761): a public name as far as adding it can tell.
        url: 'http://nothing-listens.invalid/here',
      },
    );
    expect(created.status).toBe(201);
    const tested = await other(
      'POST',
      `/api/v1/notification-channels/${created.json.channel.id}/test`,
    );
    expect(tested.status).toBe(200);
    expect(tested.json).toEqual({
      delivered: false,
      status: null,
      error: 'could not reach the target',
      error_code: 'unreachable',
    });
    // It stays listed: a test is outside the outbox and records no delivery.
    const listed = await other<{ channels: { id: string; last_delivery: unknown }[] }>(
      'GET',
      '/api/v1/notification-channels',
    );
    expect(listed.json.channels).toEqual([
      expect.objectContaining({ id: created.json.channel.id, last_delivery: null }),
    ]);
    const deleted = await fetch(
      `${clarion.server.url}/api/v1/notification-channels/${created.json.channel.id}`,
      { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } },
    );
    // Not the admin's to delete; its owner's.
    expect(deleted.status).toBe(404);
    const own = await fetch(
      `${clarion.server.url}/api/v1/notification-channels/${created.json.channel.id}`,
      { method: 'DELETE', headers: { authorization: `Bearer ${otherToken}` } },
    );
    expect(own.status).toBe(204);
  });

  it('answers a test with the receiver’s status alone, never its body', async () => {
    const secretive = await startReceiver(() => ({
      status: 403,
      body: 'internal-only: db_password=hunter2',
    }));
    try {
      for (const kind of ['webhook', 'ntfy', 'slack'] as const) {
        const created = await api<{ channel: { id: string } }>(
          'POST',
          '/api/v1/notification-channels',
          { kind, url: `${secretive.url}/admin` },
        );
        expect(created.status).toBe(201);
        const tested = await api(
          'POST',
          `/api/v1/notification-channels/${created.json.channel.id}/test`,
        );
        expect(tested.json).toEqual({
          delivered: false,
          status: 403,
          error: 'HTTP 403',
          error_code: 'http_status',
        });
        const deleted = await fetch(
          `${clarion.server.url}/api/v1/notification-channels/${created.json.channel.id}`,
          { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } },
        );
        expect(deleted.status).toBe(204);
      }
      expect(secretive.received).toHaveLength(3);
    } finally {
      await secretive.close();
    }
  });

  it.each([
    ['ntfy', 'http://192.168.1.20:8080/clarion'],
    ['webhook', 'http://10.0.0.5/hook'],
    ['slack', 'http://[::1]:9000/relay'],
    ['webhook', 'http://relay.lan/clarion'],
  ])('allows a %s on the LAN or loopback (%s)', async (kind, url) => {
    const created = await api<{ channel: { id: string } }>(
      'POST',
      '/api/v1/notification-channels',
      { kind, url },
    );
    expect(created.status).toBe(201);
    const deleted = await fetch(
      `${clarion.server.url}/api/v1/notification-channels/${created.json.channel.id}`,
      { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } },
    );
    expect(deleted.status).toBe(204);
  });

  it('takes a browser’s subscription as PushSubscription.toJSON() gives it', async () => {
    const created = await api<{ channel: { id: string; kind: string; target: string } }>(
      'POST',
      '/api/v1/notification-channels',
      {
        kind: 'web_push',
        subscription: {
          endpoint: 'https://fcm.googleapis.com/fcm/send/abc:def',
          expirationTime: null,
          keys: PUSH_KEYS,
        },
      },
    );
    expect(created.status).toBe(201);
    expect(created.json.channel).toMatchObject({ kind: 'web_push', target: 'fcm.googleapis.com' });
    const deleted = await fetch(
      `${clarion.server.url}/api/v1/notification-channels/${created.json.channel.id}`,
      { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } },
    );
    expect(deleted.status).toBe(204);
  });

  it('refuses the same channel twice, even when both are sent at once', async () => {
    const checked = wireCheckedApi(api);
    const url = 'https://hooks.example.com/clarion';
    const remove = async (token: string, id: string) =>
      (
        await fetch(`${clarion.server.url}/api/v1/notification-channels/${id}`, {
          method: 'DELETE',
          headers: { authorization: `Bearer ${token}` },
        })
      ).status;
    // One target spelled two ways `fetch` sends alike, and with different secrets: still one channel.
    const replies = await Promise.all([
      checked('POST', '/api/v1/notification-channels', { kind: 'webhook', url }),
      checked('POST', '/api/v1/notification-channels', {
        kind: 'webhook',
        url: 'https://HOOKS.example.com:443/clarion',
        secret: 's'.repeat(32),
      }),
    ]);
    expect(replies.map((reply) => reply.status).sort()).toEqual([201, 409]);
    expect(replies.find((reply) => reply.status === 409)?.json).toMatchObject({
      code: 'channel_exists',
    });
    const mine = async () =>
      (
        await api<{ channels: { id: string; kind: string; target: string }[] }>(
          'GET',
          '/api/v1/notification-channels',
        )
      ).json.channels.filter((channel) => channel.target === 'hooks.example.com/clarion');
    expect(await mine()).toHaveLength(1);

    // Another kind to the same URL, or another person's, is another channel; Slack takes any
    // host, as Slack-compatible servers (Mattermost) take its payload.
    const slack = await checked('POST', '/api/v1/notification-channels', { kind: 'slack', url });
    expect(slack.status).toBe(201);
    const others = await other<{ channel: { id: string } }>(
      'POST',
      '/api/v1/notification-channels',
      { kind: 'webhook', url },
    );
    expect(others.status).toBe(201);
    expect(await remove(otherToken, others.json.channel.id)).toBe(204);

    // Once removed, it may be added again.
    for (const channel of await mine()) expect(await remove(ADMIN_TOKEN, channel.id)).toBe(204);
    const again = await checked('POST', '/api/v1/notification-channels', { kind: 'webhook', url });
    expect(again.status).toBe(201);
    for (const channel of await mine()) await remove(ADMIN_TOKEN, channel.id);
  });

  it.each([
    ['an ntfy topic with a trailing slash', 'ntfy', 'https://ntfy.example.com/alerts/'],
    ['an ntfy topic with an empty segment', 'ntfy', 'https://ntfy.example.com//alerts'],
    ['a webhook with a fragment', 'webhook', 'https://hooks.example.com/relay#copy'],
  ])('refuses %s as the same channel: it is sent alike', async (_label, kind, respelled) => {
    const checked = wireCheckedApi(api);
    const url = new URL(respelled);
    url.hash = '';
    url.pathname = url.pathname.replace(/^\/+/, '/').replace(/\/+$/, '');
    const added: string[] = [];
    try {
      for (const [spelling, status] of [
        [url.href, 201],
        [respelled, 409],
      ] as const) {
        const reply = await checked<{ channel: { id: string }; code?: string }>(
          'POST',
          '/api/v1/notification-channels',
          { kind, url: spelling },
        );
        if (reply.status === 201) added.push(reply.json.channel.id);
        expect({ spelling, status: reply.status }).toEqual({ spelling, status });
      }
    } finally {
      for (const id of added) {
        await fetch(`${clarion.server.url}/api/v1/notification-channels/${id}`, {
          method: 'DELETE',
          headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        });
      }
    }
  });

  it(`allows at most ${MAX_CHANNELS_PER_USER} channels each`, async () => {
    for (let i = 0; i < MAX_CHANNELS_PER_USER; i += 1) {
      const reply = await other('POST', '/api/v1/notification-channels', {
        kind: 'slack',
        url: `https://hooks.slack.test/${i}`,
      });
      expect(reply.status).toBe(201);
    }
    const over = await other('POST', '/api/v1/notification-channels', {
      kind: 'slack',
      url: 'https://hooks.slack.test/over',
    });
    expect(over.status).toBe(409);
    // The page words the limit from these, not from the English message.
    expect(over.json).toMatchObject({
      code: 'conflict',
      details: { reason: 'channel_limit', limit: MAX_CHANNELS_PER_USER },
    });
    expect(
      (await other<{ channels: unknown[] }>('GET', '/api/v1/notification-channels')).json.channels,
    ).toHaveLength(MAX_CHANNELS_PER_USER);
  });
  it(`holds the limit of ${MAX_CHANNELS_PER_USER} when channels are added at once`, async () => {
    const created = await api<{ token: string }>('POST', '/api/v1/users', { name: 'Cleo' });
    expect(created.status).toBe(201);
    const cleo = bearerApi(clarion.server.url, created.json.token);
    const replies = await Promise.all(
      Array.from({ length: MAX_CHANNELS_PER_USER + 5 }, (_, i) =>
        cleo('POST', '/api/v1/notification-channels', {
          kind: 'slack',
          url: `https://hooks.slack.test/at-once-${i}`,
        }),
      ),
    );
    expect(replies.filter((reply) => reply.status === 201)).toHaveLength(MAX_CHANNELS_PER_USER);
    expect(replies.filter((reply) => reply.status === 409)).toHaveLength(5);
    expect(
      (await cleo<{ channels: unknown[] }>('GET', '/api/v1/notification-channels')).json.channels,
    ).toHaveLength(MAX_CHANNELS_PER_USER);
  });
});
