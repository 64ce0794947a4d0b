/**
 * The webhook sender: POSTs `webhookPayload` as JSON, signed with the
 * channel's secret (`X-Clarion-Signature: sha256=<hex HMAC-SHA256 of the raw
 * body>`), with the outbox row's ID as `X-Clarion-Delivery`, the same on
 * every retry, so a receiver can drop a repeat.
 *
 * The payload is data for a program: its title and question are the text as
 * stored, bidi controls included; a receiver that shows them to a person
 * owes them the markers the web app and the other channels show.
 */
import { createHmac } from 'node:crypto';
import type { WebhookPayload } from '../wire/index.js';
import type { ChannelSender, Notice } from './channel.js';
import { configString, postOnce } from './http-send.js';

export function webhookBody(notice: Notice): WebhookPayload {
  return {
    event: notice.event,
    kind: notice.kind,
    id: notice.itemId,
    session_id: notice.sessionId,
    task_id: notice.taskId,
    title: notice.taskTitle,
    ...(notice.question === undefined ? {} : { question: notice.question }),
    url: notice.url,
    created_at: notice.createdAt,
  };
}

export function signature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

export const webhookSender: ChannelSender = {
  kind: 'webhook',
  send(target, notice, signal) {
    const body = JSON.stringify(webhookBody(notice));
    return postOnce(
      {
        url: configString(target.config, 'url'),
        body,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Clarion',
          'x-clarion-signature': signature(configString(target.config, 'secret'), body),
          'x-clarion-delivery': notice.deliveryId,
          'x-clarion-event': notice.event,
        },
        reach: target.reach,
      },
      signal,
    );
  },
};
