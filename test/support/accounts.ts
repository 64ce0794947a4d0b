/**
 * An `AccountService` for suites that build routes without a whole server:
 * each announcement is recorded in order (`heard`), and any given hook is
 * called too; a deleted or removed person's sessions end as nothing.
 */
import { AccountService, type AccountAnnouncer } from '../../src/auth/index.js';
import type { Store } from '../../src/store/index.js';

/** One announcement, as the service made it. */
export type Announcement =
  | { readonly kind: 'access'; readonly userId: string }
  | { readonly kind: 'people'; readonly subjectId: string; readonly members: readonly string[] }
  | { readonly kind: 'tokens'; readonly userId: string }
  | { readonly kind: 'credentials'; readonly userId: string }
  | { readonly kind: 'notifications'; readonly userId: string }
  | {
      readonly kind: 'acted_for_ended';
      readonly sessionIds: readonly string[];
      readonly why: 'owner_deleted' | 'owner_removed';
    };

export interface RecordedAccounts {
  readonly accounts: AccountService;
  readonly heard: Announcement[];
}

export function recordedAccounts(
  store: Store,
  also: Partial<AccountAnnouncer> = {},
): RecordedAccounts {
  const heard: Announcement[] = [];
  const accounts = new AccountService({
    store,
    announce: {
      accessChanged(userId) {
        heard.push({ kind: 'access', userId });
        also.accessChanged?.(userId);
      },
      peopleChanged(subjectId, members) {
        heard.push({ kind: 'people', subjectId, members: [...members] });
        also.peopleChanged?.(subjectId, members);
      },
      tokensChanged(userId) {
        heard.push({ kind: 'tokens', userId });
        also.tokensChanged?.(userId);
      },
      credentialsEnded(userId) {
        heard.push({ kind: 'credentials', userId });
        also.credentialsEnded?.(userId);
      },
      notificationsChanged(userId) {
        heard.push({ kind: 'notifications', userId });
        also.notificationsChanged?.(userId);
      },
    },
    endSessionsActedFor: (sessionIds, why) => {
      heard.push({ kind: 'acted_for_ended', sessionIds: [...sessionIds], why });
      return Promise.resolve();
    },
  });
  return { accounts, heard };
}
