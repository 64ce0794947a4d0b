/** The webhook sender against a real local receiver: body, signature, headers, and verdicts. */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver, type Reply } from '../../test/support/receiver.js';
import { webhookPayload } from '../wire/index.js';
import type { ChannelTarget, Notice } from './channel.js';
import { INTERNAL_TARGET_REFUSED } from './guarded-post.js';
import type { Reach } from './targets.js';
import { webhookSender } from './webhook.js';

const SECRET = 'a-webhook-secret-0123456789';

const NOTICE: Notice = {
  deliveryId: 'delivery-1',
  event: 'asked',
  kind: 'question',
  itemId: 'pending-1',
  sessionId: 'session-1',
  taskId: 'task-1',
  taskTitle: 'Parser rewrite — 構文解析',
  url: 'http://clarion.test/sessions/session-1',
  createdAt: '2026-12-01T10:00:00.000000000Z',
};

/** The receivers are on loopback, which an admin's channel may reach. */
function target(url: string, reach: Reach = 'any'): ChannelTarget {
  return { id: 'channel-1', kind: 'webhook', config: { url, secret: SECRET }, reach };
}

/** How a receiver checks a delivery: HMAC of the raw body, compared in constant time. */
function verify(body: string, header: string | undefined): boolean {
  const expected = Buffer.from(`sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`);
  const given = Buffer.from(header ?? '');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

describe('the webhook sender', () => {
  let receiver: Receiver | undefined;
  afterEach(async () => {
    await receiver?.close();
    receiver = undefined;
  });

  it('POSTs the payload, signed, with a delivery ID and the event', async () => {
    receiver = await startReceiver();
    const result = await webhookSender.send(
      target(`${receiver.url}/hook?x=1`),
      NOTICE,
      AbortSignal.timeout(5_000),
    );
    expect(result).toEqual({ ok: true, status: 200 });
    const [request] = receiver.received;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/hook?x=1');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers['x-clarion-delivery']).toBe('delivery-1');
    expect(request?.headers['x-clarion-event']).toBe('asked');
    expect(verify(request?.body ?? '', request?.headers['x-clarion-signature'] as string)).toBe(
      true,
    );
    const body = webhookPayload.parse(JSON.parse(request?.body ?? ''));
    expect(body).toEqual({
      event: 'asked',
      kind: 'question',
      id: 'pending-1',
      session_id: 'session-1',
      task_id: 'task-1',
      title: 'Parser rewrite — 構文解析',
      url: 'http://clarion.test/sessions/session-1',
      created_at: '2026-12-01T10:00:00.000000000Z',
    });
    // Privacy: no question unless the notice carries it.
    expect(body.question).toBeUndefined();
  });

  it('sends the question only when the notice carries it', async () => {
    receiver = await startReceiver();
    await webhookSender.send(
      target(receiver.url),
      { ...NOTICE, question: 'Which parser?' },
      AbortSignal.timeout(5_000),
    );
    expect(JSON.parse(receiver.received[0]?.body ?? '')).toMatchObject({
      question: 'Which parser?',
    });
  });

  it('calls 5xx and 429 retryable (with Retry-After), other 4xx final', async () => {
    const replies: Reply[] = [
      { status: 503 },
      { status: 429, headers: { 'retry-after': '7' } },
      { status: 410 },
      { status: 302, headers: { location: 'http://elsewhere.test/' } },
    ];
    const live = await startReceiver((_request, index) => replies[index] ?? { status: 200 });
    receiver = live;
    const send = () => webhookSender.send(target(live.url), NOTICE, AbortSignal.timeout(5_000));
    expect(await send()).toMatchObject({ ok: false, status: 503, retryable: true });
    expect(await send()).toMatchObject({
      ok: false,
      status: 429,
      retryable: true,
      retryAfterMs: 7_000,
    });
    expect(await send()).toMatchObject({ ok: false, status: 410, retryable: false });
    expect(await send()).toMatchObject({ ok: false, status: 302, retryable: false });
  });

  it('gives up an attempt at its signal, retryably', async () => {
    receiver = await startReceiver(() => ({ status: 200, delayMs: 5_000 }));
    const started = Date.now();
    const result = await webhookSender.send(target(receiver.url), NOTICE, AbortSignal.timeout(200));
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(result).toMatchObject({ ok: false, status: null, retryable: true });
  });

  it('calls a refused connection retryable, in Clarion’s words rather than the socket’s', async () => {
    const gone = await startReceiver();
    await gone.close();
    const result = await webhookSender.send(target(gone.url), NOTICE, AbortSignal.timeout(5_000));
    expect(result).toMatchObject({
      ok: false,
      status: null,
      retryable: true,
      error: 'could not reach the target',
    });
  });

  it.each([
    ['an address', (url: string) => url],
    ['a name that resolves to one', (url: string) => url.replace('127.0.0.1', 'localhost')],
  ])(
    'never connects a public channel to a loopback target given as %s, and says so as final',
    async (_label, aim) => {
      receiver = await startReceiver();
      const result = await webhookSender.send(
        target(aim(receiver.url), 'public'),
        NOTICE,
        AbortSignal.timeout(5_000),
      );
      expect(result).toEqual({
        ok: false,
        status: null,
        retryable: false,
        error: INTERNAL_TARGET_REFUSED,
        code: 'internal_target',
      });
      expect(receiver.received).toHaveLength(0);
    },
  );

  it('calls a stored URL with credentials final, without sending it or quoting it', async () => {
    receiver = await startReceiver();
    const url = receiver.url.replace('http://', 'http://user:hunter2@');
    const result = await webhookSender.send(target(url), NOTICE, AbortSignal.timeout(5_000));
    expect(result).toMatchObject({ ok: false, status: null, retryable: false });
    expect(result.ok ? '' : result.error).toMatch(/username or password/);
    expect(JSON.stringify(result)).not.toContain('hunter2');
    expect(receiver.received).toHaveLength(0);
  });
});
