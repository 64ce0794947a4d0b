/** Notifications: the outbox, its planner, and one sender per channel kind. */
export type {
  AnswerLinkChoice,
  ChannelSender,
  ChannelTarget,
  Notice,
  SendResult,
} from './channel.js';
export type { WaitingItem } from './planner.js';
export type { AnswerLinkPort, PassReport, WaitingRequests } from './reconciler.js';
export {
  createNotifier,
  DEFAULT_NOTIFY_TUNABLES,
  type Notifier,
  type NotifierDeps,
  type NotifyTunables,
} from './notifier.js';
export { NotificationService, type NotificationServiceDeps, type SettingsBody } from './service.js';
export { ntfySender } from './ntfy.js';
export { slackSender } from './slack.js';
export { webhookSender } from './webhook.js';
