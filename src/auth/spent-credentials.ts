/**
 * The periodic prune of credentials that can never work again: used sign-in
 * links, expired sign-in links and browser sessions (`api_tokens`), and
 * answer links whose expiry is older than `ANSWER_LINK_RETAIN_EXPIRED_MS`
 * (until then a link still says "expired"). Start-up prunes once; a server
 * that runs for months must too, or every sign-in and every notice leaves a
 * row for good.
 *
 * Bounds: a pass every `intervalMs`, at most `batchesPerPass` statements of
 * at most `batchRows` rows each, the event loop given back between them; a
 * larger backlog goes on at the next pass. A pass never overlaps the last.
 * Several replicas may each run it on one PostgreSQL: each statement deletes
 * only rows no other holds (`deleteSpentTokenBatch`), and deleting what is
 * gone already is no error, so it is idempotent and never waits on a lock.
 * A failed pass ends nothing: it is logged and the next one tries again.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Logger } from '../observability/index.js';
import {
  deleteExpiredAnswerLinkBatch,
  deleteSpentTokenBatch,
  wallTimestamp,
  type RepoContext,
} from '../store/index.js';
import type { RepeatingTimers } from '../support/index.js';
import {
  ANSWER_LINK_RETAIN_EXPIRED_MS,
  SPENT_CREDENTIAL_PRUNE_BATCH_ROWS,
  SPENT_CREDENTIAL_PRUNE_BATCHES_PER_PASS,
  SPENT_CREDENTIAL_PRUNE_INTERVAL_MS,
} from '../tunables.js';

export interface SpentCredentialPruneOptions {
  readonly store: RepoContext;
  readonly timers: RepeatingTimers;
  readonly logger: Logger;
  readonly intervalMs?: number;
  readonly batchRows?: number;
  readonly batchesPerPass?: number;
}

export interface SpentCredentialPruning {
  /** One pass now (the one running, if any): how many rows it deleted. */
  pass(): Promise<number>;
  /** No more passes; resolves once the one running, if any, has ended. */
  stop(): Promise<void>;
}

type Batch = (ctx: RepoContext, limit: number) => Promise<number>;

/** What a pass deletes, in order; each goes on until a batch comes back short. */
const BATCHES: readonly Batch[] = [
  (ctx, limit) => deleteSpentTokenBatch(ctx, 'used', wallTimestamp(ctx.clock), limit),
  (ctx, limit) => deleteSpentTokenBatch(ctx, 'expired', wallTimestamp(ctx.clock), limit),
  (ctx, limit) =>
    deleteExpiredAnswerLinkBatch(
      ctx,
      wallTimestamp(ctx.clock, -ANSWER_LINK_RETAIN_EXPIRED_MS),
      limit,
    ),
];

export function startSpentCredentialPruning(
  options: SpentCredentialPruneOptions,
): SpentCredentialPruning {
  const { store, logger } = options;
  const batchRows = options.batchRows ?? SPENT_CREDENTIAL_PRUNE_BATCH_ROWS;
  const batchesPerPass = options.batchesPerPass ?? SPENT_CREDENTIAL_PRUNE_BATCHES_PER_PASS;
  let stopped = false;
  let running: Promise<number> | undefined;

  async function prune(): Promise<number> {
    let deleted = 0;
    let statements = 0;
    for (const batch of BATCHES) {
      for (;;) {
        if (stopped || statements >= batchesPerPass) return deleted;
        if (statements > 0) await nextTurn();
        statements += 1;
        const rows = await batch(store, batchRows);
        deleted += rows;
        if (rows < batchRows) break;
      }
    }
    return deleted;
  }

  function pass(): Promise<number> {
    running ??= prune().finally(() => {
      running = undefined;
    });
    return running;
  }

  const interval = options.timers.every(
    options.intervalMs ?? SPENT_CREDENTIAL_PRUNE_INTERVAL_MS,
    () => {
      if (stopped) return;
      pass().catch((error: unknown) => {
        logger.warn({ err: error }, 'pruning spent credentials failed; the next pass retries');
      });
    },
  );

  return {
    pass,
    async stop() {
      stopped = true;
      interval.cancel();
      await running?.catch(() => undefined);
    },
  };
}
