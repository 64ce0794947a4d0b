/**
 * Notifications as one running part: reconcile passes (at start, shortly
 * after any published change, and on a timer for reminders) feeding the
 * outbox worker. `changed` is what the event hub calls on every publication:
 * it only arms a debounce timer, so asking and answering never wait on it.
 * A pass at start and one every prune interval also prune the outbox
 * (`retention.ts`); while batches come back full, every pass prunes one more.
 */
import {
  NOTIFY_CLAIM_LEASE_MS,
  NOTIFY_GIVE_UP_AFTER_MS,
  NOTIFY_LANES_PER_POLL,
  NOTIFY_OUTBOX_PRUNE_BATCH_ROWS,
  NOTIFY_OUTBOX_PRUNE_INTERVAL_MS,
  NOTIFY_OUTBOX_RETENTION_MS,
  NOTIFY_RECONCILE_DEBOUNCE_MS,
  NOTIFY_RECONCILE_INTERVAL_MS,
  NOTIFY_RETRY_BASE_MS,
  NOTIFY_RETRY_MAX_MS,
  NOTIFY_SEND_TIMEOUT_MS,
  NOTIFY_STOP_RECORD_MS,
  NOTIFY_STOP_TIMEOUT_MS,
} from '../tunables.js';
import type { SettledCursor, Store } from '../store/index.js';
import type { RepeatingTimers } from '../support/index.js';
import type { ChannelKind } from '../wire/index.js';
import type { ChannelSender } from './channel.js';
import { createOutboxWorker, type AnswerLinkPort, type OutboxTunables } from './outbox.js';
import { reconcileOnce, type PassReport, type ReconcilerDeps } from './reconciler.js';
import type { PruneRequest } from './retention.js';

export interface NotifyTunables extends OutboxTunables {
  readonly debounceMs: number;
  readonly reconcileIntervalMs: number;
  readonly retentionMs: number;
  readonly pruneIntervalMs: number;
  readonly pruneBatchRows: number;
}

export const DEFAULT_NOTIFY_TUNABLES: NotifyTunables = {
  debounceMs: NOTIFY_RECONCILE_DEBOUNCE_MS,
  reconcileIntervalMs: NOTIFY_RECONCILE_INTERVAL_MS,
  pollIntervalMs: NOTIFY_RECONCILE_INTERVAL_MS,
  sendTimeoutMs: NOTIFY_SEND_TIMEOUT_MS,
  retryBaseMs: NOTIFY_RETRY_BASE_MS,
  retryMaxMs: NOTIFY_RETRY_MAX_MS,
  giveUpAfterMs: NOTIFY_GIVE_UP_AFTER_MS,
  claimLeaseMs: NOTIFY_CLAIM_LEASE_MS,
  stopTimeoutMs: NOTIFY_STOP_TIMEOUT_MS,
  stopRecordMs: NOTIFY_STOP_RECORD_MS,
  lanesPerPoll: NOTIFY_LANES_PER_POLL,
  retentionMs: NOTIFY_OUTBOX_RETENTION_MS,
  pruneIntervalMs: NOTIFY_OUTBOX_PRUNE_INTERVAL_MS,
  pruneBatchRows: NOTIFY_OUTBOX_PRUNE_BATCH_ROWS,
};

export interface NotifierDeps extends ReconcilerDeps {
  /** A store that runs transactions: the outbox deletes a channel whose subscription is gone. */
  readonly store: Store;
  readonly senders: ReadonlyMap<ChannelKind, ChannelSender>;
  readonly timers: RepeatingTimers;
  readonly tunables: NotifyTunables;
  readonly allowedHosts: readonly string[];
  readonly random?: () => number;
  readonly answerLinks?: AnswerLinkPort | undefined;
  /** A person's channels changed here (a gone subscription's channel deleted). */
  readonly channelsChanged?: ((userId: string) => void) | undefined;
}

export interface Notifier {
  start(): void;
  /** Something was published: reconcile soon. Never throws, never waits. */
  changed(): void;
  /** One pass now (after any running one); for tests and start-up. */
  reconcileNow(): Promise<PassReport>;
  close(): Promise<void>;
}

export function createNotifier(deps: NotifierDeps): Notifier {
  const { tunables, logger } = deps;
  const outbox = createOutboxWorker(deps);
  // An object: the compiler cannot see `pass` and `close` change these across an await.
  const state = { closed: false, again: false, prune: true };
  let pruneFrom: SettledCursor | null = null;
  let running: Promise<PassReport> | undefined;
  let debounce: { cancel(): void } | undefined;
  let interval: { cancel(): void } | undefined;
  let pruning: { cancel(): void } | undefined;

  function takeAgain(): boolean {
    const again = state.again && !state.closed;
    state.again = false;
    return again;
  }

  /** The prune this pass runs, if one is due (and clears the request). */
  function takePrune(): PruneRequest | undefined {
    if (!state.prune) return undefined;
    state.prune = false;
    return {
      retentionMs: tunables.retentionMs,
      batchRows: tunables.pruneBatchRows,
      after: pruneFrom,
    };
  }

  async function loop(): Promise<PassReport> {
    let total: PassReport = { inserted: 0, dropped: 0, rearmed: 0, pruned: 0, pruneFrom: null };
    state.again = false;
    do {
      const prune = takePrune();
      const report = await reconcileOnce(deps, prune);
      if (prune) {
        pruneFrom = report.pruneFrom;
        // A full batch: more may be old enough, so the next pass prunes on.
        if (pruneFrom) state.prune = true;
      }
      total = {
        inserted: total.inserted + report.inserted,
        dropped: total.dropped + report.dropped,
        rearmed: total.rearmed + report.rearmed,
        pruned: total.pruned + report.pruned,
        pruneFrom: prune ? report.pruneFrom : total.pruneFrom,
      };
      if (report.inserted + report.rearmed > 0) outbox.kick();
    } while (takeAgain());
    return total;
  }

  function pass(): Promise<PassReport> {
    if (running) {
      state.again = true;
      return running;
    }
    running = loop().finally(() => {
      running = undefined;
    });
    return running;
  }

  function background(): void {
    if (state.closed) return;
    pass().catch((error: unknown) => {
      logger.warn({ err: error }, 'notify.reconcile_failed');
    });
  }

  return {
    start() {
      outbox.start();
      interval ??= deps.timers.every(tunables.reconcileIntervalMs, background);
      pruning ??= deps.timers.every(tunables.pruneIntervalMs, () => {
        state.prune = true;
        background();
      });
      background();
    },
    changed() {
      if (state.closed || debounce) return;
      debounce = deps.timers.setTimeout(() => {
        debounce = undefined;
        background();
      }, tunables.debounceMs);
    },
    reconcileNow: pass,
    async close() {
      state.closed = true;
      debounce?.cancel();
      interval?.cancel();
      pruning?.cancel();
      await outbox.close();
      await running?.catch(() => undefined);
    },
  };
}
