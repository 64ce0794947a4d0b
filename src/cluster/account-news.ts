/**
 * News about people rather than sessions, for pages that list what no
 * session event carries: a person's "Always allow" rules, notification
 * channels and settings and API tokens, and the users, workspaces and memberships on
 * People. Called after the change committed; told to this server's hub at
 * once and, with several replicas, to the others on the wake bus (a wake
 * names only the person or the thing that changed; each replica's hub says
 * which of its sockets hear it).
 *
 * Invariants: the frames only say "read again"; the store stays the only
 * truth. A lost wake leaves those pages as they were until they are shown
 * again or their socket reconnects (the web app reads them again then), so
 * there is nothing to look at again on a poll.
 */
import type { PeopleAudience } from '../events/index.js';
import type { Logger } from '../observability/index.js';
import type { Store } from '../store/index.js';
import type { WakeBus, WakeSubscriber, WakeTopic } from './wake-bus.js';

/** What tells the news (`events/`'s hub). */
export interface AccountNewsHub {
  consentRulesChanged(userId: string): void;
  notificationsChanged(userId: string): void;
  tokensChanged(userId: string): void;
  peopleChanged(audience: PeopleAudience): void;
}

export interface AccountNews {
  /** `userId`'s rules changed (one kept or revoked). */
  consentRulesChanged(userId: string): void;
  /** `userId`'s notification channels or settings changed. */
  notificationsChanged(userId: string): void;
  /** `userId`'s API tokens changed (one made or revoked). */
  tokensChanged(userId: string): void;
  /**
   * Users, workspaces or memberships changed; `subjectId` names the one that
   * did, `members` those of a workspace whose members changed (who list them).
   */
  peopleChanged(subjectId: string, members?: readonly string[]): void;
}

export interface AccountNewsDeps {
  readonly hub: AccountNewsHub;
  /** Absent with one server (SQLite): the hub is everyone. */
  readonly bus?: WakeBus;
  readonly store: Store;
  readonly logger: Logger;
}

export function accountNews(deps: AccountNewsDeps): {
  news: AccountNews;
  /** The other replicas' news, for this hub; subscribe it to the bus. */
  wakes: WakeSubscriber;
} {
  const { hub, bus, store, logger } = deps;
  const announce = (topic: WakeTopic) => {
    bus?.send(store, topic).catch((error: unknown) => {
      logger.warn({ err: error, kind: topic.kind }, 'news for open pages could not be announced');
    });
  };
  return {
    news: {
      consentRulesChanged(userId) {
        hub.consentRulesChanged(userId);
        announce({ kind: 'rules', userId });
      },
      notificationsChanged(userId) {
        hub.notificationsChanged(userId);
        announce({ kind: 'notifications', userId });
      },
      tokensChanged(userId) {
        hub.tokensChanged(userId);
        announce({ kind: 'tokens', userId });
      },
      peopleChanged(subjectId, members = []) {
        hub.peopleChanged({ admins: true, userIds: members });
        announce({ kind: 'people', subjectId });
        for (const userId of members) announce({ kind: 'members', userId });
      },
    },
    wakes: {
      kinds: ['rules', 'notifications', 'tokens', 'people', 'members'],
      wake: ({ topic, origin }) => {
        // This replica's own hub heard it when it was told.
        if (origin === bus?.replicaId) return;
        if (topic.kind === 'rules') hub.consentRulesChanged(topic.userId);
        else if (topic.kind === 'notifications') hub.notificationsChanged(topic.userId);
        else if (topic.kind === 'tokens') hub.tokensChanged(topic.userId);
        else if (topic.kind === 'people') hub.peopleChanged({ admins: true, userIds: [] });
        else if (topic.kind === 'members') {
          hub.peopleChanged({ admins: false, userIds: [topic.userId] });
        }
      },
      resync: () => undefined,
    },
  };
}
