/**
 * What a Web Push message carries to the service worker (`web/public/sw.js`),
 * as JSON inside the aes128gcm-encrypted body. The service worker is plain
 * JavaScript served as is, so it restates these field names; this schema is
 * the one definition it follows.
 *
 * `tag` names the item, so a reminder replaces the first notice on the
 * device, and an `answered` message closes whatever that tag shows.
 */
import { z } from 'zod';
import { MAX_WEB_PUSH_BODY_CHARS, MAX_WEB_PUSH_TITLE_CHARS } from './limits.js';
import { NOTICE_EVENTS, NOTICE_KINDS } from './notifications.js';

export const webPushMessage = z
  .object({
    event: z.enum(NOTICE_EVENTS),
    kind: z.enum(NOTICE_KINDS),
    title: z.string().max(MAX_WEB_PUSH_TITLE_CHARS),
    body: z.string().max(MAX_WEB_PUSH_BODY_CHARS),
    /** Opens the item in the web app. */
    url: z.string(),
    /** The notification's tag: one per item. */
    tag: z.string(),
  })
  .meta({ id: 'WebPushMessage' });
export type WebPushMessage = z.infer<typeof webPushMessage>;
