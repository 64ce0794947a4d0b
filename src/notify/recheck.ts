/**
 * The check made again just before each attempt. A notice is planned and
 * its payload fixed when it enters the outbox, but a failing channel is
 * retried for up to a day: by then its person may have left the item's
 * workspace, or turned "include the question" off. And a pass plans from
 * what it read at its start: an answer committed before its rows are
 * written leaves an `asked` or `reminder` for an item no longer waiting,
 * sent at once. An attempt sends what they may be told now, not what they
 * could be told then: a prompt only while its item still waits.
 *
 * The rules are the reconciler's, not new ones: what waits is `waiting.ts`;
 * who may see a session is `sessionAudiences` (the members of its task's
 * workspace; a session or task gone is seen by nobody, though what was told
 * of it is still taken back: `answered`); a reminder goes only to a person
 * who still wants it by now (`reminderHeldBack`, from when the item was
 * asked: never stricter than the planner, which counts from when the
 * channel was told); without "include
 * the question" a notice carries no question, and it carries no link
 * `mayCarryAnswerLinks` refuses (none once the person turned links off).
 */
import {
  getNoticeSettings,
  holdLinkWithdrawals,
  sessionAudiences,
  type OutboxRecord,
  type RepoContext,
} from '../store/index.js';
import { pausePoint } from '../support/index.js';
import type { DeliveryErrorCode } from '../wire/index.js';
import { isPrompt, type Notice } from './channel.js';
import {
  mayCarryAnswerLinks,
  reminderHeldBack,
  timestampMs,
  type GiveUpReason,
  type NoticeContent,
} from './planner.js';
import { itemStillWaits, type WaitingRequests } from './waiting.js';

/** Why a row is given up when its person may no longer be told of its item. */
export const NO_LONGER_VISIBLE = 'its person may no longer see this item';

/** What `last_error` and its code say of a row given up for one of the planner's reasons, here or by a pass. */
export const GIVE_UP_TEXT: Record<GiveUpReason, { error: string; code: DeliveryErrorCode }> = {
  stopped_waiting: { error: 'no longer waiting', code: 'no_longer_waiting' },
  not_visible: { error: NO_LONGER_VISIBLE, code: 'not_visible' },
  reminders_off: { error: 'its person turned reminders off', code: 'reminders_off' },
  reminder_later: { error: 'its person chose a later reminder', code: 'reminder_later' },
};

/** What an attempt does: send this notice, or give the row up for this reason. */
export type Recheck = { readonly send: Notice } | { readonly drop: GiveUpReason };

/** The person's "include the question" and "answer links" settings now, and whether they may see it. */
export interface RecheckFacts extends NoticeContent {
  /** Whether the row's person may still see the notice's session. */
  readonly visible: boolean;
}

/** What may be sent now, or `undefined` when nothing may. */
export function noticeToSendNow(notice: Notice, facts: RecheckFacts): Notice | undefined {
  if (!facts.visible) return undefined;
  const redacted: { -readonly [K in keyof Notice]: Notice[K] } = { ...notice };
  if (!facts.includeQuestion) delete redacted.question;
  if (!mayCarryAnswerLinks(notice.kind, facts)) {
    delete redacted.answerable;
    delete redacted.answerLinks;
  }
  return redacted;
}

/**
 * Reads the facts for an outbox row's notice and applies `noticeToSendNow`:
 * an `asked` or `reminder` whose item no longer waits (answered, or its
 * answer on its way to its agent) is dropped as `stopped_waiting`, and owed
 * again by a pass if the item waits again (an answer its agent was not ready
 * for goes back to pending). A person who never saved settings has the
 * defaults, as when it was planned. A store failure throws: the caller must
 * not send unchecked.
 */
export async function recheckNotice(
  store: RepoContext,
  requests: WaitingRequests,
  row: Pick<OutboxRecord, 'user_id'>,
  notice: Notice,
): Promise<Recheck> {
  if (isPrompt(notice) && !(await itemStillWaits(store, requests, notice))) {
    return { drop: 'stopped_waiting' };
  }
  const userId = row.user_id;
  const audience = (await sessionAudiences(store, [notice.sessionId])).get(notice.sessionId);
  // A session or task deleted is seen by nobody, but the `answered` that takes back what its
  // person was told of it says no more than that did, and drops a notice leading nowhere.
  const gone = audience === undefined && notice.event === 'answered';
  if (!gone && !audience?.userIds.includes(userId)) return { drop: 'not_visible' };
  const settings = await getNoticeSettings(store, userId);
  // A reminder queued under the settings then, and retried since, goes out only as wanted now.
  const heldBack =
    notice.event === 'reminder'
      ? reminderHeldBack(settings, timestampMs(notice.createdAt), store.clock.nowMs())
      : undefined;
  if (heldBack) return { drop: heldBack };
  const { includeQuestion, answerLinks } = settings;
  const send = noticeToSendNow(notice, { visible: true, includeQuestion, answerLinks });
  return send ? { send } : { drop: 'not_visible' };
}

/**
 * Whether answer links may still go on this notice, read in the links' own
 * transaction: its channel still exists and its person's settings allow
 * them now. `holdLinkWithdrawals` orders this against a withdrawal, so one
 * that committed first is seen here, and a later one revokes these links.
 */
export async function answerLinksStillWanted(
  tx: RepoContext,
  userId: string,
  notice: Pick<Notice, 'kind' | 'deliveryId'>,
): Promise<boolean> {
  await pausePoint('notify.answer_links_checking');
  if (!(await holdLinkWithdrawals(tx, userId, notice.deliveryId))) return false;
  const settings = await getNoticeSettings(tx, userId);
  await pausePoint('notify.answer_links_held');
  return mayCarryAnswerLinks(notice.kind, settings);
}
