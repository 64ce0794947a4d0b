/** Notifications: the outbox, its planner, and one sender per channel kind. */
export type {
  AnswerLinkChoice,
  ChannelSender,
  ChannelTarget,
  Notice,
  SendResult,
} from './channel.js';
export type { VapidKeys, VapidSubjectSources } from './vapid.js';
export { loadVapidKeys, vapidSubject } from './vapid.js';
export type { WebPushSenderOptions } from './web-push.js';
export { createWebPushSender } from './web-push.js';
export type { WebPushChannel } from './web-push-channel.js';
export { startWebPush } from './web-push-channel.js';
