/**
 * When the inbox reads a pending list cut at its bound again. A cut list
 * (`pendingMore`) shows what its pages held; once the person answers some
 * and fewer than that wait in the inbox, the rest it did not reach would
 * stay hidden until a reconnect or a reload, so the list is read again.
 *
 * Bounded: a re-read is due only when fewer bundles are active than both
 * the cut read listed and the inbox held at the last read (applied or
 * begun), so a read that brings nothing new, or is refused, asks for no
 * other until the person answers more; the sync keeps one read of the
 * pending list out at a time, and none while its socket is not live.
 */
import { isBundleActive, type ModelState } from './read-model.js';

/** What the last pending read that stopped at its bound left. */
export interface CutPendingRead {
  /** Bundles the cut list named: what one read can show. */
  readonly listed: number;
  /** Bundles active when it was applied, or when a re-read last began. */
  readonly floor: number;
}

export function activeBundleCount(state: ModelState): number {
  let count = 0;
  for (const bundle of Object.values(state.bundles)) if (isBundleActive(state, bundle)) count++;
  return count;
}

/** The active count a re-read starts from when one is due now, else `undefined`. */
export function cutPendingRereadDue(
  state: ModelState,
  cut: CutPendingRead | undefined,
): number | undefined {
  if (cut === undefined || !state.pendingMore || state.connection !== 'live') return undefined;
  const active = activeBundleCount(state);
  return active < Math.min(cut.listed, cut.floor) ? active : undefined;
}
