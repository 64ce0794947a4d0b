/**
 * What a channel is given and what it answers: the seam between the outbox
 * (which owns when and how often) and each kind of channel (which owns how a
 * notice looks on the wire). A sender makes exactly one bounded attempt and
 * says whether another could help; it never retries, sleeps or writes.
 */
import type {
  ChannelKind,
  ConsentOptionKind,
  DeliveryErrorCode,
  NoticeEvent,
  NoticeKind,
} from '../wire/index.js';
import type { Reach } from './targets.js';

/**
 * One notice about one item, as stored in the outbox. Retries send it again
 * under the same delivery ID, less what its person may no longer be told
 * (`recheck.ts`).
 */
export interface Notice {
  /** The outbox row's ID: stable across retries (a webhook's `X-Clarion-Delivery`). */
  readonly deliveryId: string;
  readonly event: NoticeEvent;
  readonly kind: NoticeKind;
  /** The item: a bundle's pending ID or a request's ID. */
  readonly itemId: string;
  readonly sessionId: string;
  readonly taskId: string;
  readonly taskTitle: string;
  /** Only when the person turned "include the question" on. */
  readonly question?: string | undefined;
  /** Opens the item in the web app (absolute, from the public origin). */
  readonly url: string;
  readonly createdAt: string;
  /** When the item stops waiting (its deadline), if it has one: a push expires with it. */
  readonly expiresAt?: string | null | undefined;
  /**
   * Whether one tap may decide the item from this notice. Stored in place of
   * its links: each attempt mints them as it sends (`outbox.ts`), so the
   * outbox never holds a secret that decides anything.
   */
  readonly answerable?: boolean | undefined;
  /**
   * One single-use answer link per choice, minted for the attempt that sends
   * them. (A row queued before links were minted at send holds its own.)
   */
  readonly answerLinks?: readonly AnswerLinkChoice[] | undefined;
}

export interface AnswerLinkChoice {
  /** The agent's or the question's own words for the choice. */
  readonly label: string;
  /**
   * A consent option's kind, so the notice says what the choice does in
   * Clarion's words; absent for other items (and on notices queued before it was kept).
   */
  readonly kind?: ConsentOptionKind | undefined;
  readonly url: string;
}

/** A channel as a sender needs it: its kind, its target and its secrets, decrypted config. */
/** Whether the notice asks its person to act (`asked`, `reminder`), not says how it ended. */
export function isPrompt(notice: Pick<Notice, 'event'>): boolean {
  return notice.event === 'asked' || notice.event === 'reminder';
}

export interface ChannelTarget {
  readonly id: string;
  readonly kind: ChannelKind;
  /** The kind's own settings (URL, subscription, access token, signing secret). */
  readonly config: Readonly<Record<string, unknown>>;
  /** Whether its sends may connect to loopback, link-local and private addresses (`targets.ts`). */
  readonly reach: Reach;
}

export type SendResult =
  | { readonly ok: true; readonly status: number | null }
  | {
      readonly ok: false;
      readonly status: number | null;
      /** Clarion's English, for logs and API users; `code` says the same for a page to word. */
      readonly error: string;
      readonly code: DeliveryErrorCode;
      /** False when no retry can help (the subscription is gone: 404/410; a 4xx refusal). */
      readonly retryable: boolean;
      /** The receiver's `Retry-After`, when it gave one. */
      readonly retryAfterMs?: number | undefined;
    };

export interface ChannelSender {
  readonly kind: ChannelKind;
  /** Whether its notices show answer links: none are minted for one that does not. */
  readonly showsAnswerLinks?: boolean;
  /** One attempt; `signal` aborts it at the outbox's per-send bound. */
  send(target: ChannelTarget, notice: Notice, signal: AbortSignal): Promise<SendResult>;
}
