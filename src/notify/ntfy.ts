/**
 * The ntfy sender. It publishes as JSON to the server's root with the topic
 * in the body rather than with `Title`/`Click` headers on the topic URL:
 * headers cannot carry a task title in Japanese or German without RFC 2047
 * encoding, and the JSON form says the same (title, message, click URL, tags,
 * action buttons). A protected topic's access token goes as `Bearer`.
 *
 * Action buttons open the notice's answer links (each shows a confirm page,
 * so a tap never decides by itself); without links, one button opens the
 * item. ntfy shows at most three, a way to refuse a consent among them
 * (`shownLinks`). A consent's button leads with what the choice does, by its
 * kind, in Clarion's words; the agent's label follows as the agent's
 * (`consentChoiceText`).
 */
import type { AnswerLinkChoice, ChannelSender, Notice } from './channel.js';
import { configString, postOnce } from './http-send.js';
import { consentChoiceText, showBidiControls } from '../wire/index.js';
import { noticeMessage, noticeTitle } from './notice-text.js';

const MAX_NTFY_ACTIONS = 3;

const TAGS: Record<Notice['kind'], string> = {
  question: 'question',
  consent: 'lock',
  action: 'point_right',
  form: 'memo',
};

/**
 * The server's root and the topic, from a topic URL (`https://ntfy.sh/my-topic`).
 * The query stays on the root: ntfy reads `?auth=` on every endpoint, the
 * JSON publish included, so a topic URL with its token in it keeps working.
 * `newChannelBody` refuses a URL without a valid topic.
 */
export function splitTopicUrl(topicUrl: string): { root: string; topic: string } {
  const url = new URL(topicUrl);
  const segments = url.pathname.split('/').filter((segment) => segment !== '');
  const topic = segments.pop() ?? '';
  url.pathname = `/${segments.join('/')}`;
  url.hash = '';
  return { root: url.toString(), topic: decodeURIComponent(topic) };
}

/**
 * A topic URL as its publish reads it (`splitTopicUrl`): empty path segments
 * and the fragment dropped, so `…/alerts`, `…/alerts/` and `…//alerts` are
 * one channel's target, not three channels sending each notice three times.
 */
export function topicTarget(topicUrl: string): string {
  const url = new URL(topicUrl);
  url.pathname = `/${url.pathname
    .split('/')
    .filter((segment) => segment !== '')
    .join('/')}`;
  url.hash = '';
  return url.href;
}

const refuses = (link: AnswerLinkChoice) =>
  link.kind === 'reject_once' || link.kind === 'reject_always';

/**
 * The links ntfy's three buttons show, in the agent's order. A consent that
 * offers more keeps a way to refuse among them: cut at three, an agent that
 * lists its ways to allow first (Gemini's MCP tools: allow, always allow the
 * tool, always allow the server, reject) would leave only buttons that allow.
 */
export function shownLinks(links: readonly AnswerLinkChoice[]): readonly AnswerLinkChoice[] {
  const shown = links.slice(0, MAX_NTFY_ACTIONS);
  const refusal = links.find(refuses);
  if (refusal === undefined || shown.some(refuses)) return shown;
  return [...shown.slice(0, MAX_NTFY_ACTIONS - 1), refusal];
}

export function ntfyMessage(topic: string, notice: Notice) {
  const links = notice.answerLinks ?? [];
  const actions =
    links.length > 0 && notice.event !== 'answered'
      ? shownLinks(links).map((link) => ({
          action: 'view',
          // A consent's button says what it does first: the agent names its options.
          label: showBidiControls(
            link.kind === undefined ? link.label : consentChoiceText(link.kind, link.label),
          ),
          url: link.url,
          clear: true,
        }))
      : [{ action: 'view', label: 'Open in Clarion', url: notice.url, clear: true }];
  return {
    topic,
    title: noticeTitle(notice),
    message: noticeMessage(notice),
    click: notice.url,
    tags: [notice.event === 'answered' ? 'white_check_mark' : TAGS[notice.kind]],
    priority: notice.event === 'answered' ? 2 : 4,
    actions,
  };
}

export const ntfySender: ChannelSender = {
  kind: 'ntfy',
  showsAnswerLinks: true,
  send(target, notice, signal) {
    const { root, topic } = splitTopicUrl(configString(target.config, 'url'));
    const token = configString(target.config, 'access_token');
    return postOnce(
      {
        url: root,
        body: JSON.stringify(ntfyMessage(topic, notice)),
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Clarion',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        reach: target.reach,
      },
      signal,
    );
  },
};
