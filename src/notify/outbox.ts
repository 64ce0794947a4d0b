/**
 * The outbox worker: sends owed notices through the sender of their
 * channel's kind, one lane per channel, so a slow or failing channel never
 * delays another. The rows are the truth: a lane claims one due row at a
 * time (the claim moves `next_attempt_at` to a lease's end), makes one
 * bounded attempt and records its verdict; a server that dies mid-send
 * leaves a row that falls due again when the lease runs out.
 *
 * A row's payload was fixed when it was planned, and a failing channel is
 * retried for up to a day, so each attempt first asks again whether its
 * item still waits (a prompt's), whether its person may still see it and
 * still wants the question in it (`recheck.ts`): a prompt for an item
 * answered meanwhile is not sent, one who may not see it is told nothing
 * more (the row is given up either way), one who turned the question off
 * gets the notice without it.
 *
 * Answer links are minted by the attempt that sends them, never kept in the
 * row: the store keeps a link's hash only, as for tokens, and a row's
 * payload outlives the send by days (and sits in every backup). A retry
 * mints anew and revokes the links its earlier attempts carried.
 *
 * Invariants: nothing here runs on the path of asking or answering (the
 * worker is woken, never awaited); every send is bounded by the send
 * timeout; `close` claims nothing more, lets sends in flight finish for
 * most of its bound (one whose reply comes is recorded delivered, so a
 * restart does not send it again), aborts the rest, and returns within
 * its bound.
 */
import {
  channelsWithDueRows,
  deferDueRows,
  claimNextDue,
  getUser,
  getUserChannel,
  recordAttempt,
  type ChannelRecord,
  type OutboxRecord,
  type RepoContext,
  type Store,
} from '../store/index.js';
import { pausePoint, type RepeatingTimers } from '../support/index.js';
import type { ChannelKind } from '../wire/index.js';
import {
  isPrompt,
  type AnswerLinkChoice,
  type ChannelSender,
  type ChannelTarget,
  type Notice,
  type SendResult,
} from './channel.js';
import { removeChannel } from './channel-removal.js';
import { timestampMs } from './planner.js';
import { answerLinksStillWanted, GIVE_UP_TEXT, recheckNotice } from './recheck.js';
import { judgeAttempt, type RetryTunables } from './retry-policy.js';
import { channelReach, channelUrl, hostAllowed, type Reach } from './targets.js';
import type { GiveUpReason } from './planner.js';
import type { WaitingRequests } from './waiting.js';

export interface OutboxTunables extends RetryTunables {
  readonly sendTimeoutMs: number;
  readonly claimLeaseMs: number;
  readonly pollIntervalMs: number;
  readonly stopTimeoutMs: number;
  /** The end of `stopTimeoutMs` kept for recording the sends `close` aborted. */
  readonly stopRecordMs: number;
  readonly lanesPerPoll: number;
}

/**
 * Mints one single-use answer link per choice of the item for `userId`, or
 * none when the item is decided, gone, out of their sight or needs more than
 * a tap (the answer-links owner, `turns/answer-links.ts`). The links an
 * earlier attempt of the same notice (`deliveryId`) carried are revoked.
 * None when `mayIssue`, asked in the links' own transaction, refuses.
 */
export type AnswerLinkPort = (
  item: Pick<Notice, 'kind' | 'itemId' | 'deliveryId'>,
  userId: string,
  mayIssue: (tx: RepoContext) => Promise<boolean>,
) => Promise<readonly AnswerLinkChoice[]>;

export interface NotifyLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

export interface OutboxDeps {
  readonly store: Store;
  /** What still waits, for the recheck of a prompt (`recheck.ts`): the reconciler's port. */
  readonly requests: WaitingRequests;
  readonly senders: ReadonlyMap<ChannelKind, ChannelSender>;
  readonly timers: RepeatingTimers;
  readonly logger: NotifyLogger;
  readonly tunables: OutboxTunables;
  /** Hosts a channel may send to (`CLARION_NOTIFY_ALLOWED_HOSTS`); empty allows all. */
  readonly allowedHosts: readonly string[];
  /** The jitter's source; tests pass a fixed one. */
  readonly random?: () => number;
  readonly answerLinks?: AnswerLinkPort | undefined;
  /** A person's channels changed here (a gone subscription's channel deleted): their Settings read again. */
  readonly channelsChanged?: ((userId: string) => void) | undefined;
}

export interface OutboxWorker {
  start(): void;
  /** Look for due rows soon (new rows were written). Never waits. */
  kick(): void;
  close(): Promise<void>;
}

/** A stored channel as a sender sees it, reaching what `reach` lets it. */
export function channelTarget(channel: ChannelRecord, reach: Reach): ChannelTarget {
  const config: unknown = JSON.parse(channel.config);
  return {
    id: channel.id,
    kind: channel.kind as ChannelKind,
    config:
      typeof config === 'object' && config !== null ? (config as Record<string, unknown>) : {},
    reach,
  };
}

/**
 * What a channel may reach, by its owner as they are now: an admin who is
 * one no longer loses the reach an admin has, at the next send.
 */
export async function ownerReach(
  store: RepoContext,
  userId: string,
  allowedHosts: readonly string[],
): Promise<Reach> {
  const owner = await getUser(store, userId);
  return channelReach(owner?.is_admin === 1, allowedHosts);
}

/** An outbox row's notice: its stored payload, with the row's ID as the delivery ID. */
export function noticeOf(row: OutboxRecord): Notice {
  const payload = JSON.parse(row.payload) as Omit<Notice, 'deliveryId'>;
  return { ...payload, deliveryId: row.id };
}

/**
 * One bounded attempt through `sender`: aborted at `timeoutMs` or by `stop`,
 * and settled at the bound even if the sender ignores its signal. `stop`
 * lives as long as the worker, so the attempt listens to it and lets go
 * after: Node 20's `AbortSignal.any` would keep a reference on it for every
 * attempt ever made.
 */
export async function attemptOnce(
  sender: ChannelSender,
  target: ChannelTarget,
  notice: Notice,
  timers: RepeatingTimers,
  timeoutMs: number,
  stop?: AbortSignal,
): Promise<SendResult> {
  const attempt = new AbortController();
  let timer: { cancel(): void } | undefined;
  const bound = new Promise<SendResult>((resolve) => {
    timer = timers.setTimeout(() => {
      attempt.abort();
      resolve({ ok: false, status: null, error: 'timed out', code: 'timed_out', retryable: true });
    }, timeoutMs);
  });
  let onStop: (() => void) | undefined;
  const stopped = new Promise<SendResult>((resolve) => {
    onStop = () => {
      attempt.abort();
      resolve({
        ok: false,
        status: null,
        error: 'server shutting down',
        code: 'shutting_down',
        retryable: true,
      });
    };
    if (stop?.aborted) onStop();
    else stop?.addEventListener('abort', onStop, { once: true });
  });
  try {
    // Called inside the chain: a sender that throws before its first await is judged too.
    const sending = Promise.resolve()
      .then(() => sender.send(target, notice, attempt.signal))
      .catch((error: unknown): SendResult => ({
        ok: false,
        status: null,
        error: error instanceof Error ? error.message : String(error),
        code: 'send_failed',
        retryable: true,
      }));
    return await Promise.race([sending, bound, stopped]);
  } finally {
    timer?.cancel();
    if (onStop) stop?.removeEventListener('abort', onStop);
  }
}

export function createOutboxWorker(deps: OutboxDeps): OutboxWorker {
  const { store, tunables, logger } = deps;
  const random = deps.random ?? Math.random;
  const lanes = new Map<string, Promise<void>>();
  const stop = new AbortController();
  let interval: { cancel(): void } | undefined;
  // An object, not lets: the compiler cannot see other calls change them across an await.
  const state = { polling: false, pollAgain: false, closing: false };
  let kicked: { cancel(): void } | undefined;

  /** Whether a poll was asked for while one ran (and clears the request). */
  function takeAgain(): boolean {
    const again = state.pollAgain && !state.closing;
    state.pollAgain = false;
    return again;
  }

  async function poll(): Promise<void> {
    if (state.closing) return;
    if (state.polling) {
      state.pollAgain = true;
      return;
    }
    state.polling = true;
    try {
      do {
        const channels = await channelsWithDueRows(
          store,
          store.clock.nowMs(),
          tunables.lanesPerPoll,
          [...lanes.keys()],
        );
        for (const channel of channels) startLane(channel);
      } while (takeAgain());
    } catch (error) {
      logger.warn({ err: error }, 'notify.outbox_poll_failed');
    } finally {
      state.polling = false;
    }
  }

  function startLane(channel: ChannelRecord): void {
    if (state.closing || lanes.has(channel.id)) return;
    // A kind with no sender here (Web Push before its sender is wired) stays owed.
    const sender = deps.senders.get(channel.kind as ChannelKind);
    if (!sender) return;
    const lane = runLane(channel, sender)
      .catch((error: unknown) => {
        logger.warn({ err: error, channel_id: channel.id }, 'notify.lane_failed');
      })
      .finally(() => {
        lanes.delete(channel.id);
      });
    lanes.set(channel.id, lane);
  }

  async function runLane(channel: ChannelRecord, sender: ChannelSender): Promise<void> {
    const reach = await ownerReach(store, channel.user_id, deps.allowedHosts);
    while (!state.closing) {
      const row = await claimNextDue(store, channel.id, store.clock.nowMs(), tunables.claimLeaseMs);
      if (!row) return;
      // Read again for each row: a Web Push channel renewed meanwhile sends to its new subscription.
      const current = await getUserChannel(store, channel.user_id, channel.id);
      if (!current) return;
      const sent = await sendRow(channelTarget(current, reach), current.config, sender, row);
      // A receiver that failed is not sent the channel's next notice at once: a poll or its
      // `Retry-After` brings the lane back, one attempt rather than a burst of the backlog.
      if (sent === 'failed') return;
    }
  }

  /** One attempt at `row`, or why it is dropped: its person may no longer be told of it. */
  async function attemptRow(
    target: ChannelTarget,
    sender: ChannelSender,
    row: OutboxRecord,
    fields: Record<string, unknown>,
  ): Promise<SendResult | { dropped: GiveUpReason }> {
    if (!hostAllowed(channelUrl(target.kind, target.config), deps.allowedHosts)) {
      return {
        ok: false,
        status: null,
        error: 'the target host is not in CLARION_NOTIFY_ALLOWED_HOSTS',
        code: 'host_not_allowed',
        retryable: false,
      };
    }
    const stored = noticeOf(row);
    let recheck: Awaited<ReturnType<typeof recheckNotice>>;
    try {
      recheck = await recheckNotice(store, deps.requests, row, stored);
    } catch (error) {
      // Unchecked is unsent: the row keeps its place and is judged like any failed attempt.
      logger.warn({ ...fields, err: error }, 'notify.recheck_failed');
      return {
        ok: false,
        status: null,
        error: 'could not check the notice again before sending',
        code: 'recheck_failed',
        retryable: true,
      };
    }
    if ('drop' in recheck) return { dropped: recheck.drop };
    const sent = await withAnswerLinks(recheck.send, row.user_id, sender, fields);
    return attemptOnce(sender, target, sent, deps.timers, tunables.sendTimeoutMs, stop.signal);
  }

  /**
   * The notice as this attempt sends it: with answer links minted now, for
   * its person, when it is `answerable` (after the recheck) and its channel
   * shows links. Minting reads the item as that person sees it now, so one
   * decided meanwhile gets none. Each attempt mints its own (only hashes are
   * kept, so the last attempt's secrets cannot be sent again) and revokes the
   * unused ones of the attempts before: one notice holds one live set of
   * links. A failure sends the notice without: it still brings the person to
   * Clarion.
   */
  async function withAnswerLinks(
    notice: Notice,
    userId: string,
    sender: ChannelSender,
    fields: Record<string, unknown>,
  ): Promise<Notice> {
    const { answerable, ...sent } = notice;
    if (!answerable || !isPrompt(notice) || sender.showsAnswerLinks !== true || !deps.answerLinks) {
      return sent;
    }
    try {
      await pausePoint('notify.before_answer_links');
      const answerLinks = await deps.answerLinks(notice, userId, (tx) =>
        answerLinksStillWanted(tx, userId, notice),
      );
      return answerLinks.length > 0 ? { ...sent, answerLinks } : sent;
    } catch (error) {
      logger.warn({ ...fields, err: error }, 'notify.answer_links_failed');
      return sent;
    }
  }

  /**
   * A push service that says a subscription is gone (404, 410) says so to
   * every notice after it: the channel made from it is deleted, so its
   * device reads as off in Settings and offers to turn on again, and nothing
   * more is sent to it. A failure leaves it for the next notice's answer.
   * `kept` when the channel holds another subscription now (renewed while
   * the send was on its way), or is gone already.
   */
  async function forgetChannel(
    row: OutboxRecord,
    triedConfig: string,
    fields: Record<string, unknown>,
  ): Promise<'removed' | 'kept' | 'failed'> {
    try {
      // Only the subscription tried is gone: a channel renewed since holds another.
      if (!(await removeChannel(store, row.user_id, row.channel_id, triedConfig))) return 'kept';
      logger.info(fields, 'notify.subscription_gone');
      deps.channelsChanged?.(row.user_id);
      return 'removed';
    } catch (error) {
      logger.warn({ ...fields, err: error }, 'notify.subscription_gone_not_removed');
      return 'failed';
    }
  }

  /** One attempt at `row`, recorded: `failed` when it is owed again after a backoff. */
  async function sendRow(
    target: ChannelTarget,
    triedConfig: string,
    sender: ChannelSender,
    row: OutboxRecord,
  ): Promise<'failed' | 'settled'> {
    const fields = {
      delivery_id: row.id,
      channel_id: target.id,
      kind: target.kind,
      event: row.event,
      attempts: row.attempts,
    };
    const result = await attemptRow(target, sender, row, fields);
    if ('dropped' in result) {
      // The channel did not fail, so no retry window or shutdown applies: nothing more goes out.
      const { error, code } = GIVE_UP_TEXT[result.dropped];
      await recordAttempt(store, row, {
        outcome: 'gave_up',
        reason: result.dropped,
        status: null,
        error,
        code,
      });
      logger.info({ ...fields, error }, 'notify.dropped');
      return 'settled';
    }
    const nowMs = store.clock.nowMs();
    /** The failed attempt recorded, and the notice due again at once, not after a backoff. */
    const dueNow = async (failed: Extract<SendResult, { ok: false }>) => {
      await recordAttempt(store, row, {
        outcome: 'retry',
        status: failed.status,
        error: failed.error,
        code: failed.code,
        nextAttemptMs: nowMs,
      });
      return 'settled' as const;
    };
    // Cut short by shutdown: due again at the next start.
    if (stop.signal.aborted && !result.ok) return dueNow(result);
    if (
      !result.ok &&
      result.code === 'subscription_gone' &&
      (await forgetChannel(row, triedConfig, fields)) === 'kept'
    ) {
      // Renewed meanwhile: the notice is owed to the new subscription (a channel deleted
      // meanwhile took the row with it, and this changes nothing).
      return dueNow(result);
    }
    const verdict = judgeAttempt(
      {
        result,
        attempts: row.attempts,
        firstAttemptMs: row.first_attempt_at ? timestampMs(row.first_attempt_at) : nowMs,
        nowMs,
        random: random(),
      },
      tunables,
    );
    await recordAttempt(store, row, verdict);
    if (verdict.outcome === 'retry') {
      logger.info({ ...fields, status: verdict.status, error: verdict.error }, 'notify.retry');
      // The receiver's `Retry-After` speaks for the channel, not for this notice alone.
      if (!result.ok && result.retryAfterMs !== undefined) {
        await deferDueRows(store, target.id, verdict.nextAttemptMs, store.clock.nowMs());
      }
      return 'failed';
    }
    if (verdict.outcome === 'gave_up')
      logger.warn({ ...fields, status: verdict.status, error: verdict.error }, 'notify.gave_up');
    return 'settled';
  }

  /** Whether `work` settled within `ms`. */
  async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
    let timer: { cancel(): void } | undefined;
    const settled = await Promise.race([
      work.then(() => true),
      new Promise<false>((resolve) => {
        timer = deps.timers.setTimeout(() => {
          resolve(false);
        }, ms);
      }),
    ]);
    timer?.cancel();
    return settled;
  }

  return {
    start() {
      interval ??= deps.timers.every(tunables.pollIntervalMs, () => void poll());
      void poll();
    },
    kick() {
      if (state.closing || kicked) return;
      kicked = deps.timers.setTimeout(() => {
        kicked = undefined;
        void poll();
      }, 0);
    },
    async close() {
      state.closing = true;
      interval?.cancel();
      kicked?.cancel();
      // No lane starts once closing: the ones running now are all there will be.
      const running = Promise.all(lanes.values());
      const finishing = Math.max(0, tunables.stopTimeoutMs - tunables.stopRecordMs);
      if (!(await settlesWithin(running, finishing))) {
        stop.abort();
        await settlesWithin(running, Math.min(tunables.stopRecordMs, tunables.stopTimeoutMs));
      }
      stop.abort();
    },
  };
}
