/**
 * How a notice looks as a Web Push message: the JSON the service worker
 * shows (`wire/web-push.ts`) and the push-service headers that go with it.
 * Pure: time comes in as `nowMs`.
 *
 * - `TTL` follows the item's deadline: a push service drops the message when
 *   the item stops waiting, not weeks later. Without a deadline it is kept
 *   `defaultTtlS`. An `answered` message lives at least that long, so a device
 *   that comes back later still closes what it shows.
 * - `Topic` is derived from the item: a push service holding an undelivered
 *   notice for an offline device replaces it with the later one (a reminder,
 *   or the `answered` that makes it moot) instead of delivering both.
 * - The text says the task and the kind, never the question unless the
 *   person turned "include the question" on (the planner decides: `question`).
 *   Their bidi controls show as markers (`showBidiControls`), as on the web:
 *   a phone would obey them, with no isolate around the text.
 */
import { createHash } from 'node:crypto';
import { WEB_PUSH_DEFAULT_TTL_S, WEB_PUSH_MAX_TTL_S } from '../tunables.js';
import {
  MAX_WEB_PUSH_BODY_CHARS,
  MAX_WEB_PUSH_TITLE_CHARS,
  showBidiControls,
  type NoticeKind,
  type WebPushMessage,
} from '../wire/index.js';
import type { Notice } from './channel.js';

export type PushUrgency = 'very-low' | 'low' | 'normal' | 'high';

export interface WebPushEnvelope {
  readonly message: WebPushMessage;
  readonly ttlS: number;
  readonly urgency: PushUrgency;
  /** At most 32 base64url characters (RFC 8030 §5.4). */
  readonly topic: string;
}

export interface TtlBounds {
  readonly defaultTtlS: number;
  readonly maxTtlS: number;
}

export const DEFAULT_TTL_BOUNDS: TtlBounds = {
  defaultTtlS: WEB_PUSH_DEFAULT_TTL_S,
  maxTtlS: WEB_PUSH_MAX_TTL_S,
};

const KIND_TEXT: Readonly<Record<NoticeKind, string>> = {
  question: 'An agent asks you a question.',
  consent: 'An agent asks for your permission.',
  action: 'An agent asks you to do something.',
  form: 'An agent asks you to fill in a form.',
};

export function webPushEnvelope(
  notice: Notice,
  nowMs: number,
  bounds: TtlBounds = DEFAULT_TTL_BOUNDS,
): WebPushEnvelope {
  return {
    message: {
      event: notice.event,
      kind: notice.kind,
      title: cut(
        notice.event === 'test' ? 'Clarion' : showBidiControls(notice.taskTitle),
        MAX_WEB_PUSH_TITLE_CHARS,
      ),
      body: cut(bodyText(notice), MAX_WEB_PUSH_BODY_CHARS),
      url: notice.url,
      tag: notificationTag(notice.itemId),
    },
    ttlS: timeToLiveS(notice, nowMs, bounds),
    urgency: notice.event === 'answered' ? 'normal' : 'high',
    topic: pushTopic(notice.itemId),
  };
}

function bodyText(notice: Notice): string {
  const what =
    notice.question === undefined ? KIND_TEXT[notice.kind] : showBidiControls(notice.question);
  switch (notice.event) {
    case 'asked':
      return what;
    case 'reminder':
      return `Still waiting for you: ${what}`;
    case 'answered':
      return 'Answered.';
    case 'test':
      return 'Notifications work on this device.';
  }
}

/** Seconds the push service keeps the message for a device that is offline. */
export function timeToLiveS(notice: Notice, nowMs: number, bounds: TtlBounds): number {
  const deadlineMs = notice.expiresAt ? Date.parse(notice.expiresAt) : Number.NaN;
  const untilDeadlineS = Number.isNaN(deadlineMs)
    ? undefined
    : Math.max(0, Math.ceil((deadlineMs - nowMs) / 1000));
  if (notice.event === 'answered') {
    return Math.min(bounds.maxTtlS, Math.max(bounds.defaultTtlS, untilDeadlineS ?? 0));
  }
  return Math.min(bounds.maxTtlS, untilDeadlineS ?? bounds.defaultTtlS);
}

/** One tag per item, so the device shows one notification for it at a time. */
export function notificationTag(itemId: string): string {
  return `clarion-${itemId}`;
}

/** A stable 32-character base64url name for the item (IDs may be longer or hold other characters). */
export function pushTopic(itemId: string): string {
  return createHash('sha256').update(itemId).digest('base64url').slice(0, 32);
}

/**
 * At most `maxUnits` UTF-16 units (the schema's measure), never splitting a
 * character or a bidi marker (a cut "⟨U+20" would say nothing).
 */
function cut(text: string, maxUnits: number): string {
  if (text.length <= maxUnits) return text;
  let kept = '';
  for (const point of text) {
    if (kept.length + point.length > maxUnits - 1) break;
    kept += point;
  }
  return `${kept.replace(PARTIAL_MARKER, '')}…`;
}
const PARTIAL_MARKER = /⟨U\+[0-9A-F]{0,6}$/;
