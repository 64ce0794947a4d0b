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
export type { WaitingItem } from './planner.js';
export type { AnswerLinkPort } from './outbox.js';
export type { PassReport } from './reconciler.js';
export type { WaitingRequests } from './waiting.js';
export {
  createNotifier,
  DEFAULT_NOTIFY_TUNABLES,
  type Notifier,
  type NotifierDeps,
  type NotifyTunables,
} from './notifier.js';
export {
  NotificationService,
  type ChannelOwner,
  type NotificationServiceDeps,
  type SettingsBody,
} from './service.js';
export { ntfySender } from './ntfy.js';
export { slackSender } from './slack.js';
export { webhookSender } from './webhook.js';
