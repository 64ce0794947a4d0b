/**
 * The check made again just before each attempt. A notice is planned and
 * its payload fixed when it enters the outbox, but a failing channel is
 * retried for up to a day: by then its person may have left the item's
 * workspace, or turned "include the question" off. An attempt sends what
 * they may be told now, not what they could be told then.
 *
 * The rules are the reconciler's, not new ones: who may see a session is
 * `sessionAudiences` (the members of its task's workspace; a session or task
 * gone is seen by nobody), and without "include the question" a notice
 * carries neither the question nor the links `mayCarryAnswerLinks` refuses.
 */
import {
  getNoticeSettings,
  sessionAudiences,
  type OutboxRecord,
  type RepoContext,
} from '../store/index.js';
import type { Notice } from './channel.js';
import { mayCarryAnswerLinks } from './planner.js';

/** Why a row is given up when its person may no longer be told of its item. */
export const NO_LONGER_VISIBLE = 'its person may no longer see this item';

export interface RecheckFacts {
  /** Whether the row's person may still see the notice's session. */
  readonly visible: boolean;
  /** The person's "include the question" setting now. */
  readonly includeQuestion: boolean;
}

/** What may be sent now, or `undefined` when nothing may. */
export function noticeToSendNow(notice: Notice, facts: RecheckFacts): Notice | undefined {
  if (!facts.visible) return undefined;
  if (facts.includeQuestion) return notice;
  const redacted: { -readonly [K in keyof Notice]: Notice[K] } = { ...notice };
  delete redacted.question;
  if (!mayCarryAnswerLinks(notice.kind, false)) {
    delete redacted.answerable;
    delete redacted.answerLinks;
  }
  return redacted;
}

/**
 * Reads the facts for an outbox row's notice and applies `noticeToSendNow`.
 * A person who never saved settings has the defaults, as when it was
 * planned. A store failure throws: the caller must not send unchecked.
 */
export async function recheckNotice(
  store: RepoContext,
  row: Pick<OutboxRecord, 'user_id'>,
  notice: Notice,
): Promise<Notice | undefined> {
  const userId = row.user_id;
  const audiences = await sessionAudiences(store, [notice.sessionId]);
  const visible = audiences.get(notice.sessionId)?.userIds.includes(userId) ?? false;
  if (!visible) return undefined;
  const { includeQuestion } = await getNoticeSettings(store, userId);
  return noticeToSendNow(notice, { visible, includeQuestion });
}
