/**
 * Reordering and clearing the session queue, as rules over the list the tab
 * last fetched. Only people's messages have an order the server takes
 * (`PUT …/queue/order` names each exactly once); follow-ups always run after
 * them and never move. The server refuses an order (400 `invalid_request`)
 * that no longer names exactly what is queued: a message was sent, added or
 * removed since the list was fetched, so the move lost a race. A clear
 * removes people's messages and the due follow-ups alike, those queued when
 * it arrives: one the agent took meanwhile is not among them. Pure.
 */
import type { ApiResult } from './api.js';
import { showBidiControls } from './bidi.js';
import type { QueueItemView } from './types.js';

export type MoveDirection = 'up' | 'down';

/**
 * The IDs of people's messages in their new order, `itemId` one place
 * `direction`; undefined when it cannot go that way (first, last, a follow-up).
 */
export function movedOrder(
  items: readonly QueueItemView[],
  itemId: string,
  direction: MoveDirection,
): string[] | undefined {
  const ids = items.filter((item) => item.owner === 'user').map((item) => item.id);
  const from = ids.indexOf(itemId);
  const to = direction === 'up' ? from - 1 : from + 1;
  if (from < 0 || to < 0 || to >= ids.length) return undefined;
  const [moved] = ids.splice(from, 1);
  if (moved === undefined) return undefined;
  ids.splice(to, 0, moved);
  return ids;
}

/** Why a clear or a move did not happen, in terms a person is told. */
export type QueueFailure =
  /** 404: the session is gone, or no longer the caller's to see. */
  | 'gone'
  /** No answer: it may or may not have happened; the list fetched again shows which. */
  | 'unreachable'
  | 'failed';

/** A move's failures: a clear cannot lose a race, it takes whatever is queued. */
export type MoveFailure =
  /** The order named what is no longer queued, or missed what now is. */
  'raced' | QueueFailure;

export function moveFailureOf(result: ApiResult<unknown>): MoveFailure | undefined {
  if (result.ok) return undefined;
  if (result.kind === 'http' && result.code === 'invalid_request') return 'raced';
  return failureOf(result);
}

export function clearFailureOf(result: ApiResult<unknown>): QueueFailure | undefined {
  return result.ok ? undefined : failureOf(result);
}

function failureOf(result: Exclude<ApiResult<unknown>, { ok: true }>): QueueFailure {
  if (result.kind === 'network') return 'unreachable';
  return result.status === 404 ? 'gone' : 'failed';
}

/**
 * Why an item the person confirmed clearing is still not removed by the
 * clear: it had left the queue before the clear reached it (the agent took
 * it, most likely), or the server kept it (it is listed again after).
 */
export type ClearMissReason = 'taken' | 'kept';

export interface ClearMiss {
  id: string;
  text: string;
  reason: ClearMissReason;
}

/**
 * What a clear the server answered did not remove of what the person
 * confirmed (`confirmed`, the list the confirmation counted), judged by the
 * list fetched after it (`listedNow`).
 */
export function clearMissesOf(
  confirmed: readonly QueueItemView[],
  removed: readonly QueueItemView[],
  listedNow: readonly QueueItemView[],
): ClearMiss[] {
  const gone = new Set(removed.map((item) => item.id));
  const listed = new Set(listedNow.map((item) => item.id));
  return confirmed
    .filter((item) => !gone.has(item.id))
    .map((item) => ({
      id: item.id,
      text: item.text,
      reason: listed.has(item.id) ? 'kept' : 'taken',
    }));
}

/** What a clear removes, for its confirmation. */
export interface ClearSummary {
  messages: number;
  followUps: number;
}

export function clearSummaryOf(items: readonly QueueItemView[]): ClearSummary {
  const messages = items.filter((item) => item.owner === 'user').length;
  return { messages, followUps: items.length - messages };
}

/**
 * A message's text as part of a button's accessible name: one line, cut to
 * `max` characters, its bidi controls shown rather than obeyed (`UserText`).
 */
export function namePreview(text: string, max = 60): string {
  const line = text.replace(/\s+/g, ' ').trim();
  // By grapheme, so the cut never splits a letter from its accent or an emoji.
  const graphemes = Array.from(
    new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(line),
    (piece) => piece.segment,
  );
  const cut = graphemes.length <= max ? line : `${graphemes.slice(0, max - 1).join('')}…`;
  return showBidiControls(cut);
}
