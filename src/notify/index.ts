/** Notifications: the outbox, its planner, and one sender per channel kind. */
export type {
  AnswerLinkChoice,
  ChannelSender,
  ChannelTarget,
  Notice,
  SendResult,
} from './channel.js';
