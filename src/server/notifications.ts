/**
 * Notifications as the composition root wires them: the senders (Web Push
 * with this server's own VAPID keys), the notifier that owes notices for
 * what waits and reconciles whenever an event is published, and the service
 * behind the settings routes. Answer links are minted by `turns/`, which
 * knows every kind of item a person can answer.
 */
import type { ClarificationService } from '../clarification/index.js';
import type { Config } from '../config.js';
import type { EventHub } from '../events/index.js';
import {
  createNotifier,
  DEFAULT_NOTIFY_TUNABLES,
  NotificationService,
  ntfySender,
  slackSender,
  startWebPush,
  webhookSender,
  type AnswerLinkPort,
  type ChannelSender,
  type Notifier,
  type NotifyTunables,
} from '../notify/index.js';
import type { Logger } from '../observability/logger.js';
import type { Store } from '../store/index.js';
import { systemTimers } from '../support/timers.js';
import { mintAnswerLinks } from '../turns/index.js';
import type { UserInputReplicas } from '../turns/user-input-replicas.js';
import type { UserInputRegistry } from '../user-input/index.js';
import type { ChannelKind } from '../wire/index.js';

export interface NotifyOptions {
  senders?: ReadonlyMap<ChannelKind, ChannelSender>;
  tunables?: Partial<NotifyTunables>;
  random?: () => number;
  answerLinks?: AnswerLinkPort;
  vapidPublicKey?: () => string | Promise<string>;
}

export interface NotificationDeps {
  readonly store: Store;
  readonly config: Config;
  readonly hub: EventHub;
  readonly clarification: ClarificationService;
  readonly userInputs: UserInputRegistry;
  /** Several replicas: the requests other replicas hold. */
  readonly userInputsAcross: UserInputReplicas | undefined;
  /** The browser-facing origin, known once the server listens. */
  readonly origin: () => string;
  readonly logger: Logger;
  readonly options: NotifyOptions | undefined;
  /** A person's channels or settings changed (committed): their open Settings read them again. */
  readonly notificationsChanged: (userId: string) => void;
}

export interface Notifications {
  readonly notifier: Notifier;
  readonly service: NotificationService;
  /** Stops reconciling on published events; the notifier itself closes apart. */
  readonly stopObserving: () => void;
}

/** The senders this server has (Web Push with its own VAPID keys); tests add or replace. */
function builtInSenders(webPush: ChannelSender, extra?: ReadonlyMap<ChannelKind, ChannelSender>) {
  const senders = new Map<ChannelKind, ChannelSender>(
    [webhookSender, ntfySender, slackSender, webPush].map((sender) => [sender.kind, sender]),
  );
  for (const [kind, sender] of extra ?? []) senders.set(kind, sender);
  return senders;
}

export async function wireNotifications(deps: NotificationDeps): Promise<Notifications> {
  const { store, config, options, userInputs, userInputsAcross, origin, logger } = deps;
  const tunables = { ...DEFAULT_NOTIFY_TUNABLES, ...options?.tunables };
  const webPush = await startWebPush(store, {
    clock: store.clock,
    contact: config.vapidSubject,
    publicOrigin: config.publicOrigin,
  });
  if (!webPush.subjectUsable) {
    logger.warn(
      { subject: webPush.subject },
      'Web Push to Safari and iOS needs CLARION_VAPID_SUBJECT or an https CLARION_PUBLIC_ORIGIN',
    );
  }
  const senders = builtInSenders(webPush.sender, options?.senders);
  const allowedHosts = config.notifyAllowedHosts ?? [];
  const answerLinkDeps = {
    store,
    clarification: deps.clarification,
    userInputs,
    userInputsElsewhere: userInputsAcross?.elsewhere,
    origin,
  };
  const notifier = createNotifier({
    store,
    // Several servers: another replica's requests still wait, so none is taken for answered here.
    requests: userInputsAcross
      ? {
          snapshot: async () => [
            ...userInputs.snapshot(),
            ...(await userInputsAcross.waitingElsewhere()),
          ],
        }
      : userInputs,
    origin,
    answerLinks:
      options?.answerLinks ??
      ((item, userId, mayIssue) =>
        mintAnswerLinks(answerLinkDeps, {
          userId,
          kind: item.kind,
          itemId: item.itemId,
          deliveryId: item.deliveryId,
          mayIssue,
        })),
    logger: logger.child({ component: 'notify' }),
    senders,
    timers: systemTimers,
    tunables,
    allowedHosts,
    ...(options?.random ? { random: options.random } : {}),
    channelsChanged: deps.notificationsChanged,
  });
  const stopObserving = deps.hub.observe(() => {
    notifier.changed();
  });
  const service = new NotificationService({
    store,
    senders,
    timers: systemTimers,
    sendTimeoutMs: tunables.sendTimeoutMs,
    allowedHosts,
    origin,
    vapidPublicKey: options?.vapidPublicKey ?? (() => webPush.vapidPublicKey),
    changed: deps.notificationsChanged,
  });
  return { notifier, service, stopObserving };
}
