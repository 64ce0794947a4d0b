/**
 * The Web Push sender against a local push service (`support/push-service.ts`)
 * that verifies the VAPID JWT and decrypts the aes128gcm body with node:crypto
 * alone: what a real push service and browser would accept, and how each of
 * its answers becomes a `SendResult`.
 */
import { createServer } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ChannelTarget, Notice } from '../../src/notify/index.js';
import { createWebPushSender, vapidSubject, type VapidKeys } from '../../src/notify/index.js';
import { INTERNAL_TARGET_REFUSED } from '../../src/notify/guarded-post.js';
import { pushTopic } from '../../src/notify/web-push-message.js';
import { WEB_PUSH_DEFAULT_TTL_S, WEB_PUSH_MAX_TTL_S } from '../../src/tunables.js';
import { webPushMessage } from '../../src/wire/index.js';
import { fakeClock } from '../support/fakes.js';
import { startPushService, type PushServiceStub } from '../support/push-service.js';
import webPush from 'web-push';

const NOW = Date.parse('2026-03-01T12:00:00Z');
const SUBJECT = vapidSubject({ publicOrigin: 'https://clarion.example.org' }).subject;

function notice(overrides: Partial<Notice> = {}): Notice {
  return {
    deliveryId: 'delivery-1',
    event: 'asked',
    kind: 'consent',
    itemId: 'request-42',
    sessionId: 'session-1',
    taskId: 'task-1',
    taskTitle: 'Refactor the billing module',
    url: 'https://clarion.example.org/sessions/session-1',
    createdAt: '2026-03-01T12:00:00.000000000Z',
    expiresAt: '2026-03-01T12:01:30.000000000Z',
    ...overrides,
  };
}

describe('the Web Push sender against a push service', () => {
  let service: PushServiceStub;
  let keys: VapidKeys;
  let target: ChannelTarget;
  // The sender's clock drives TTL; the JWT's own expiry is checked against real time.
  const clock = fakeClock(NOW);
  const signal = new AbortController().signal;

  beforeAll(async () => {
    service = await startPushService();
    keys = webPush.generateVAPIDKeys();
  });
  afterAll(async () => {
    await service.close();
  });
  afterEach(() => {
    service.received.length = 0;
    service.respond = (push) =>
      push.vapid.ok && push.payload.ok ? { status: 201 } : { status: 400 };
  });

  function sender(options: { sendTimeoutMs?: number } = {}) {
    return createWebPushSender({ keys, subject: SUBJECT, clock, ...options });
  }

  function freshTarget(): ChannelTarget {
    return {
      id: 'channel-1',
      kind: 'web_push',
      config: { subscription: service.subscribe(keys.publicKey) },
      reach: 'any',
    };
  }

  it('delivers a VAPID-signed, aes128gcm-encrypted notice that expires with its item', async () => {
    target = freshTarget();
    const result = await sender().send(target, notice(), signal);

    expect(result).toEqual({ ok: true, status: 201 });
    expect(service.received).toHaveLength(1);
    const [push] = service.received;
    expect(push?.vapid.ok).toBe(true);
    expect(push?.vapid.ok === true && push.vapid.claims).toMatchObject({
      aud: service.origin,
      sub: 'https://clarion.example.org',
    });
    expect(push?.headers['content-encoding']).toBe('aes128gcm');
    expect(push?.headers.ttl).toBe('90');
    expect(push?.headers.urgency).toBe('high');
    expect(push?.headers.topic).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(push?.payload.ok).toBe(true);
    const text = push?.payload.ok ? push.payload.text : '';
    const message = webPushMessage.parse(JSON.parse(text));
    expect(message).toEqual({
      event: 'asked',
      kind: 'consent',
      title: 'Refactor the billing module',
      body: 'An agent asks for your permission.',
      url: 'https://clarion.example.org/sessions/session-1',
      tag: 'clarion-request-42',
    });
    // Privacy: without "include the question", the text never reaches the push service.
    expect(text).not.toContain('rm -rf');
  });

  it('carries the question only when the notice includes it', async () => {
    target = freshTarget();
    await sender().send(target, notice({ question: 'May I run rm -rf build/?' }), signal);
    const [push] = service.received;
    const message = webPushMessage.parse(JSON.parse(push?.payload.ok ? push.payload.text : ''));
    expect(message.body).toBe('May I run rm -rf build/?');
  });

  it('sends "answered" for the same tag and topic, so the device and the service drop the notice', async () => {
    target = freshTarget();
    await sender().send(target, notice(), signal);
    await sender().send(target, notice({ event: 'answered', deliveryId: 'delivery-2' }), signal);

    const [asked, answered] = service.received;
    expect(answered?.vapid.ok).toBe(true);
    expect(answered?.headers.topic).toBe(asked?.headers.topic);
    expect(answered?.headers.topic).toBe(pushTopic('request-42'));
    expect(answered?.headers.urgency).toBe('normal');
    // It outlives a short deadline: a device that wakes later still closes the notice.
    expect(answered?.headers.ttl).toBe(String(WEB_PUSH_DEFAULT_TTL_S));
    const message = webPushMessage.parse(
      JSON.parse(answered?.payload.ok ? answered.payload.text : ''),
    );
    expect(message).toMatchObject({ event: 'answered', tag: 'clarion-request-42' });
  });

  it('keeps a notice without a deadline for the default TTL, and a far deadline at most the cap', async () => {
    target = freshTarget();
    await sender().send(target, notice({ expiresAt: null }), signal);
    await sender().send(target, notice({ expiresAt: '2026-03-09T12:00:00.000000000Z' }), signal);
    await sender().send(target, notice({ expiresAt: '2026-03-01T11:00:00.000000000Z' }), signal);
    expect(service.received.map((push) => push.headers.ttl)).toEqual([
      String(WEB_PUSH_DEFAULT_TTL_S),
      String(WEB_PUSH_MAX_TTL_S),
      '0',
    ]);
  });

  it('takes a subscription made for another server key as refused, not retryable', async () => {
    target = {
      id: 'channel-1',
      kind: 'web_push',
      config: { subscription: service.subscribe(webPush.generateVAPIDKeys().publicKey) },
      reach: 'any',
    };
    const result = await sender().send(target, notice(), signal);
    expect(result).toMatchObject({ ok: false, status: 403, retryable: false });
    // The service's reason stays with it: the test reply and `last_error` say only the status.
    expect(result.ok ? '' : result.error).toBe('the push service refused the message (403)');
  });

  it.each([404, 410])('maps %i to "subscription gone", never retried', async (status) => {
    target = freshTarget();
    service.respond = () => ({ status });
    const result = await sender().send(target, notice(), signal);
    expect(result).toMatchObject({ ok: false, status, retryable: false });
    expect(result.ok ? '' : result.error).toContain('subscription is gone');
  });

  it('retries 503 after its Retry-After seconds, and 429 after its Retry-After date', async () => {
    target = freshTarget();
    service.respond = (_push, index) =>
      index === 0
        ? { status: 503, headers: { 'Retry-After': '30' } }
        : { status: 429, headers: { 'Retry-After': new Date(NOW + 120_000).toUTCString() } };
    expect(await sender().send(target, notice(), signal)).toMatchObject({
      ok: false,
      status: 503,
      retryable: true,
      retryAfterMs: 30_000,
    });
    expect(await sender().send(target, notice(), signal)).toMatchObject({
      ok: false,
      status: 429,
      retryable: true,
      retryAfterMs: 120_000,
    });
  });

  it('retries a 500 without Retry-After, a 408 and a 425, and refuses a 400', async () => {
    target = freshTarget();
    const statuses = [500, 408, 425, 400];
    service.respond = (_push, index) => ({
      status: statuses[index] ?? 400,
      body: 'internal body: token=abc123',
    });
    const first = await sender().send(target, notice(), signal);
    expect(first).toMatchObject({ ok: false, status: 500, retryable: true });
    expect(first.ok ? 'ok' : first.retryAfterMs).toBeUndefined();
    // As every other sender retries them (http-send.ts), and the README says.
    for (const status of [408, 425]) {
      expect(await sender().send(target, notice(), signal)).toMatchObject({
        ok: false,
        status,
        retryable: true,
      });
    }
    expect(await sender().send(target, notice(), signal)).toMatchObject({
      ok: false,
      status: 400,
      retryable: false,
      error: 'the push service refused the message (400)',
    });
  });

  it('gives up on a service that never answers within its own bound', async () => {
    target = freshTarget();
    service.respond = () => 'hang';
    const started = performance.now();
    const result = await sender({ sendTimeoutMs: 300 }).send(target, notice(), signal);
    const elapsed = performance.now() - started;
    expect(result).toMatchObject({ ok: false, status: null, retryable: true });
    expect(result.ok ? '' : result.error).toContain('did not answer within 300 ms');
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(5_000);
  });

  it('stops when the outbox aborts the attempt', async () => {
    target = freshTarget();
    service.respond = () => 'hang';
    const controller = new AbortController();
    setTimeout(() => {
      controller.abort();
    }, 100);
    const started = performance.now();
    const result = await sender().send(target, notice(), controller.signal);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(result).toMatchObject({ ok: false, retryable: true, error: 'the send was aborted' });
  });

  it('retries when the push service cannot be reached', async () => {
    const closedPort = await unusedPort();
    const subscription = service.subscribe(keys.publicKey);
    const unreachable: ChannelTarget = {
      id: 'channel-1',
      kind: 'web_push',
      config: {
        subscription: {
          ...subscription,
          endpoint: `http://127.0.0.1:${String(closedPort)}/push/x`,
        },
      },
      reach: 'any',
    };
    const result = await sender().send(unreachable, notice(), signal);
    expect(result).toMatchObject({ ok: false, status: null, retryable: true });
    expect(result.ok ? '' : result.error).toBe('the push service could not be reached');
  });

  it('never sends a public channel’s push to a loopback endpoint', async () => {
    const result = await sender().send({ ...freshTarget(), reach: 'public' }, notice(), signal);
    expect(result).toEqual({
      ok: false,
      status: null,
      retryable: false,
      error: INTERNAL_TARGET_REFUSED,
      code: 'internal_target',
    });
    expect(service.received).toHaveLength(0);
  });

  it('refuses a channel without a valid subscription without sending anything', async () => {
    for (const config of [
      {},
      { subscription: { endpoint: 'ftp://push.example/x', keys: { p256dh: 'a', auth: 'b' } } },
      { subscription: { endpoint: 'http://push.example.com/x', keys: { p256dh: 'a', auth: 'b' } } },
    ]) {
      const result = await sender().send(
        { id: 'c', kind: 'web_push', config, reach: 'any' },
        notice(),
        signal,
      );
      expect(result).toMatchObject({ ok: false, retryable: false });
    }
    const badKey: ChannelTarget = {
      id: 'c',
      kind: 'web_push',
      config: {
        subscription: {
          endpoint: `${service.origin}/push/x`,
          // Shaped like a P-256 point, but (0, 0) is not on the curve.
          keys: { p256dh: `B${'A'.repeat(86)}`, auth: 'A'.repeat(22) },
        },
      },
      reach: 'any',
    };
    const result = await sender().send(badKey, notice(), signal);
    expect(result).toMatchObject({ ok: false, retryable: false });
    expect(result.ok ? '' : result.error).toContain('could not be prepared');
    expect(service.received).toHaveLength(0);
  });
});

async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise<void>((done) => {
    server.close(() => {
      done();
    });
  });
  return port;
}
