/**
 * Notifications on the wire: a person's channels (Web Push, ntfy, a webhook,
 * Slack), their settings, and the JSON a webhook receives. What is sent is a
 * notice about an item (a question bundle, a consent, an action or a form
 * request), never a decision: answering happens in Clarion, or through an
 * answer link (`answer-links.ts`).
 */
import { z } from 'zod';
import { hasNtfyTopic, isHttpUrl, urlHasCredentials } from './channel-url.js';
import { timestamp } from './common.js';
import { DELIVERY_ERROR_CODES } from './delivery-errors.js';
import {
  MAX_CHANNEL_NAME_CHARS,
  MAX_CHANNEL_SECRET_CHARS,
  MAX_PUSH_KEY_CHARS,
  MAX_REMINDER_DELAY_S,
  MAX_URL_CHARS,
  MIN_CHANNEL_SECRET_CHARS,
} from './limits.js';

export { urlHasCredentials };

export const CHANNEL_KINDS = ['web_push', 'ntfy', 'webhook', 'slack'] as const;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];

/**
 * Why a notice is sent. `answered` follows an `asked` to channels that can
 * retract or update it (the item was decided elsewhere or ended); `test` is
 * the settings page's "Send a test".
 */
export const NOTICE_EVENTS = ['asked', 'reminder', 'answered', 'test'] as const;
export type NoticeEvent = (typeof NOTICE_EVENTS)[number];

/** What waits on the person; one notice per item, never per question row. */
export const NOTICE_KINDS = ['question', 'consent', 'action', 'form'] as const;
export type NoticeKind = (typeof NOTICE_KINDS)[number];

/**
 * An http(s) URL. Loopback and private addresses are allowed on purpose: a
 * self-hosted server talks to its own LAN (ntfy, a relay). A username or
 * password in it is refused: `fetch` will not send such a URL, so every
 * notice would fail, and the password would be kept in the channel.
 */
export const httpUrl = z
  .string()
  .trim()
  .max(MAX_URL_CHARS, `must be at most ${MAX_URL_CHARS} characters`)
  .refine(isHttpUrl, { error: 'must be an http:// or https:// URL' })
  .refine((value) => !urlHasCredentials(value), {
    error: 'must not include a username or password (user:password@): they cannot be sent',
  });

const channelName = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(MAX_CHANNEL_NAME_CHARS, `must be at most ${MAX_CHANNEL_NAME_CHARS} characters`)
  .optional()
  .describe('Shown in the settings; defaults to the kind and host');

const channelSecret = z
  .string()
  .min(MIN_CHANNEL_SECRET_CHARS, `must be at least ${MIN_CHANNEL_SECRET_CHARS} characters`)
  .max(MAX_CHANNEL_SECRET_CHARS, `must be at most ${MAX_CHANNEL_SECRET_CHARS} characters`)
  .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces');

const base64url = z
  .string()
  .min(1)
  .max(MAX_PUSH_KEY_CHARS)
  .regex(/^[A-Za-z0-9_-]+={0,2}$/, 'must be base64url');

/** A browser's `PushSubscription.toJSON()`, as the web app sends it. */
export const pushSubscription = z
  .object({
    endpoint: httpUrl.refine((value) => value.startsWith('https://') || isLoopbackUrl(value), {
      error: 'a push service endpoint must be https:// (loopback http:// is allowed for tests)',
    }),
    expirationTime: z.number().nullable().optional(),
    keys: z.strictObject({
      // RFC 8291: the browser's key is an uncompressed P-256 point (65 bytes, 0x04 first) and
      // its auth secret 16 bytes; anything else could only fail at every send.
      p256dh: base64url.regex(
        /^B[A-Za-z0-9_-]{86}=?$/,
        'must be an uncompressed P-256 public key (65 bytes)',
      ),
      auth: base64url.regex(/^[A-Za-z0-9_-]{22}(==)?$/, 'must be 16 bytes'),
    }),
  })
  .meta({ id: 'PushSubscription' });
export type PushSubscriptionJson = z.infer<typeof pushSubscription>;

function isLoopbackUrl(value: string): boolean {
  const host = new URL(value).hostname;
  return host === '127.0.0.1' || host === 'localhost' || host === '[::1]';
}

export const newChannelBody = z
  .discriminatedUnion('kind', [
    z.strictObject({
      kind: z.literal('web_push'),
      name: channelName,
      subscription: pushSubscription,
    }),
    z.strictObject({
      kind: z.literal('ntfy'),
      name: channelName,
      url: httpUrl
        .refine(hasNtfyTopic, {
          error:
            'must end in a topic of 1 to 64 letters, digits, - or _, e.g. https://ntfy.sh/my-clarion-topic',
        })
        .describe('The topic URL, e.g. https://ntfy.sh/my-clarion-topic'),
      access_token: channelSecret.optional().describe('For a protected topic (sent as Bearer)'),
    }),
    z.strictObject({
      kind: z.literal('webhook'),
      name: channelName,
      url: httpUrl,
      secret: channelSecret
        .optional()
        .describe(
          'HMAC-SHA256 key for X-Clarion-Signature; generated (and returned once) if absent',
        ),
    }),
    z.strictObject({
      kind: z.literal('slack'),
      name: channelName,
      url: httpUrl.describe(
        'A Slack incoming-webhook URL. Any host is taken: Slack-compatible servers ' +
          '(Mattermost, Rocket.Chat) accept the same payload',
      ),
    }),
  ])
  .meta({ id: 'NewNotificationChannelBody' });
export type NewChannelBody = z.infer<typeof newChannelBody>;

/** What `WEB_PUSH_RENEWAL_PATH` takes (`constants.ts` says when it is sent). */
export const webPushRenewalBody = z
  .strictObject({
    /** The endpoint of the subscription the browser replaced. */
    old_endpoint: httpUrl,
    subscription: pushSubscription,
  })
  .meta({ id: 'WebPushRenewalBody' });
export type WebPushRenewalBody = z.infer<typeof webPushRenewalBody>;

export const DELIVERY_STATES = ['pending', 'delivered', 'retrying', 'failed'] as const;

/** Why it failed, for a page to word (`delivery-errors.ts`); `error` is the same in English. */
const deliveryErrorCode = z
  .enum(DELIVERY_ERROR_CODES)
  .nullable()
  .describe('Why it failed, as a stable code; null when it did not, and on older records');

export const channelView = z
  .object({
    id: z.string(),
    kind: z.enum(CHANNEL_KINDS),
    name: z.string(),
    /** Where it goes, without secrets: a host and path, or the push service's host. */
    target: z.string(),
    created_at: timestamp,
    last_delivery: z
      .object({
        state: z.enum(DELIVERY_STATES),
        at: timestamp,
        error: z.string().nullable(),
        error_code: deliveryErrorCode,
        status: z
          .number()
          .int()
          .nullable()
          .describe('The receiver’s HTTP status at the last attempt, if it answered'),
      })
      .nullable(),
  })
  .meta({ id: 'NotificationChannel' });
export type ChannelView = z.infer<typeof channelView>;

export const newChannelReply = z.object({
  channel: channelView,
  /** A webhook's generated secret, shown only this once. */
  secret: z.string().optional(),
});
export type NewChannelReply = z.infer<typeof newChannelReply>;
/** The channel that now holds the new subscription: the same channel, same ID. */
export const webPushRenewalReply = z.object({ channel: channelView });
export type WebPushRenewalReply = z.infer<typeof webPushRenewalReply>;
export const channelListReply = z.object({ channels: z.array(channelView) });
export type ChannelListReply = z.infer<typeof channelListReply>;

/** The outcome of "Send a test": one bounded attempt, outside the outbox. */
export const channelTestReply = z
  .object({
    delivered: z.boolean(),
    status: z.number().int().nullable().describe('The receiver’s HTTP status, if it answered'),
    error: z.string().nullable(),
    error_code: deliveryErrorCode,
  })
  .meta({ id: 'NotificationChannelTest' });
export type ChannelTestReply = z.infer<typeof channelTestReply>;

export const notificationSettings = z
  .object({
    /** Seconds an item waits unanswered before its one reminder; 0 sends none. */
    reminder_delay_s: z.number().int().min(0).max(MAX_REMINDER_DELAY_S),
    /** Off by default: a notice carries the task title and the kind, not the question. */
    include_question: z.boolean(),
    /**
     * On by default: a notice to a channel that shows them (ntfy) carries one
     * single-use answer link per choice. Anyone who can read the channel can
     * decide with one, as this person: turn it off for a topic others can read.
     */
    answer_links: z
      .boolean()
      .describe(
        'Whether ntfy notices carry one-tap answer links; anyone who can read the topic can use them',
      ),
  })
  .meta({ id: 'NotificationSettings' });
export type NotificationSettings = z.infer<typeof notificationSettings>;
export const notificationSettingsBody = notificationSettings
  .partial()
  .strict()
  .meta({ id: 'NotificationSettingsBody' });
export const notificationSettingsReply = z.object({
  settings: notificationSettings,
  /** The server's VAPID public key (base64url) for `PushManager.subscribe`. */
  web_push_public_key: z.string(),
});
export type NotificationSettingsReply = z.infer<typeof notificationSettingsReply>;

/**
 * The JSON body a webhook receives, signed `X-Clarion-Signature:
 * sha256=<hex HMAC of the raw body>`; `X-Clarion-Delivery` carries a stable
 * ID, the same on every retry of one notice.
 */
export const webhookPayload = z
  .object({
    event: z.enum(NOTICE_EVENTS),
    kind: z.enum(NOTICE_KINDS),
    /** The item: a bundle's pending ID or a request's ID. */
    id: z.string(),
    session_id: z.string(),
    task_id: z.string(),
    /** The task's title. */
    title: z.string(),
    /** The question or request text, only when the person turned `include_question` on. */
    question: z.string().optional(),
    /** Opens the item in the web app. */
    url: z.string(),
    created_at: timestamp,
  })
  .meta({ id: 'WebhookPayload' });
export type WebhookPayload = z.infer<typeof webhookPayload>;
