/** The Slack sender against a real local receiver playing an incoming webhook. */
import { afterEach, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../../test/support/receiver.js';
import type { Notice } from './channel.js';
import { slackSender } from './slack.js';

const NOTICE: Notice = {
  deliveryId: 'delivery-1',
  event: 'reminder',
  kind: 'question',
  itemId: 'pending-1',
  sessionId: 'session-1',
  taskId: 'task-1',
  taskTitle: 'Fix <b> & co',
  url: 'http://clarion.test/sessions/session-1',
  createdAt: '2026-12-01T10:00:00.000000000Z',
};

describe('the Slack sender', () => {
  let receiver: Receiver | undefined;
  afterEach(async () => {
    await receiver?.close();
    receiver = undefined;
  });

  it('posts one mrkdwn message with an escaped title and a link', async () => {
    receiver = await startReceiver(() => ({ status: 200, body: 'ok' }));
    const result = await slackSender.send(
      { id: 'c', kind: 'slack', config: { url: `${receiver.url}/services/T/B/X` }, reach: 'any' },
      NOTICE,
      AbortSignal.timeout(5_000),
    );
    expect(result).toEqual({ ok: true, status: 200 });
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0]?.path).toBe('/services/T/B/X');
    expect(JSON.parse(receiver.received[0]?.body ?? '')).toEqual({
      text:
        '*Fix &lt;b&gt; &amp; co*: Still waiting: an agent has a question ' +
        '<http://clarion.test/sessions/session-1|Open in Clarion>',
    });
  });

  it('writes bidi controls in the title and the question out as markers', async () => {
    receiver = await startReceiver(() => ({ status: 200, body: 'ok' }));
    await slackSender.send(
      { id: 'c', kind: 'slack', config: { url: `${receiver.url}/services/T/B/X` }, reach: 'any' },
      { ...NOTICE, taskTitle: 'invoice\u202Efdp.exe', question: 'Pay \u061C10?' },
      AbortSignal.timeout(5_000),
    );
    expect(JSON.parse(receiver.received[0]?.body ?? '')).toEqual({
      text:
        '*invoice⟨U+202E⟩fdp.exe*: Still waiting: an agent has a question: Pay ⟨U+061C⟩10? ' +
        '<http://clarion.test/sessions/session-1|Open in Clarion>',
    });
  });

  it('calls a 500 retryable and a 404 (a removed webhook) final', async () => {
    const replies = [{ status: 500 }, { status: 404, body: 'no_service' }];
    receiver = await startReceiver((_r, index) => replies[index] ?? { status: 200 });
    const target = {
      id: 'c',
      kind: 'slack' as const,
      config: { url: receiver.url },
      reach: 'any' as const,
    };
    expect(await slackSender.send(target, NOTICE, AbortSignal.timeout(5_000))).toMatchObject({
      retryable: true,
      status: 500,
    });
    expect(await slackSender.send(target, NOTICE, AbortSignal.timeout(5_000))).toMatchObject({
      retryable: false,
      status: 404,
    });
  });
});
