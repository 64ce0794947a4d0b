/**
 * Web Push as the composition root needs it: the server's VAPID pair loaded
 * (or made, at first start) from the store, the sender for `web_push`
 * channels, and the public key the web app subscribes with
 * (`notificationSettingsReply.web_push_public_key`).
 */
import type { RepoContext } from '../store/index.js';
import type { Clock } from '../support/index.js';
import type { ChannelSender } from './channel.js';
import { loadVapidKeys, vapidSubject, type VapidSubjectSources } from './vapid.js';
import { createWebPushSender } from './web-push.js';

export interface WebPushChannel {
  readonly sender: ChannelSender;
  /** base64url, for `PushManager.subscribe`'s `applicationServerKey`. */
  readonly vapidPublicKey: string;
  /** The JWT's `sub`, and whether Apple's push service would accept it (warn at start if not). */
  readonly subject: string;
  readonly subjectUsable: boolean;
}

export async function startWebPush(
  store: RepoContext,
  options: VapidSubjectSources & { readonly clock: Clock },
): Promise<WebPushChannel> {
  const keys = await loadVapidKeys(store);
  const { subject, usable } = vapidSubject(options);
  return {
    sender: createWebPushSender({ keys, subject, clock: options.clock }),
    vapidPublicKey: keys.publicKey,
    subject,
    subjectUsable: usable,
  };
}
