/**
 * The Slack incoming-webhook sender: one mrkdwn message with a link to the
 * item. Slack cannot take a message back through an incoming webhook, so it
 * is sent `asked` and `reminder` (and tests), never `answered`.
 */
import type { ChannelSender, Notice } from './channel.js';
import { configString, postOnce } from './http-send.js';
import { noticeMessage, noticeTaskTitle } from './notice-text.js';

/** Slack's mrkdwn treats these three as control characters. */
export function escapeMrkdwn(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

export function slackText(notice: Notice): string {
  return (
    `*${escapeMrkdwn(noticeTaskTitle(notice))}*: ${escapeMrkdwn(noticeMessage(notice))} ` +
    `<${notice.url}|Open in Clarion>`
  );
}

export const slackSender: ChannelSender = {
  kind: 'slack',
  send(target, notice, signal) {
    return postOnce(
      {
        url: configString(target.config, 'url'),
        body: JSON.stringify({ text: slackText(notice) }),
        headers: { 'content-type': 'application/json', 'user-agent': 'Clarion' },
        reach: target.reach,
      },
      signal,
    );
  },
};
