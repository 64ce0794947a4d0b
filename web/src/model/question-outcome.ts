/**
 * What a question's transcript line says of it (a `transcript.*` catalog
 * key), from its row's status and what the page knows of its bundle. A row
 * still pending is waiting beside the overlay's bundle (its bundle active),
 * or was superseded by a newer turn (its bundle known, no longer active), or
 * is no longer this person's to see: its bundle was forgotten because their
 * answer or cancel was refused as unknown (404), while it may well wait for
 * everyone else, so it never says the conversation moved on. Pure.
 */
import type { RowStatus } from './types.js';

export type QuestionOutcome =
  | 'waiting'
  | 'superseded'
  | 'unavailable'
  | 'answered'
  | 'skipped'
  | 'expired'
  | 'expiredOwnerDeleted'
  | 'expiredOwnerRemoved'
  | 'cancelled';

/** The page's bundle of the row: active, known but settled or superseded, or forgotten. */
export type BundleKnown = 'active' | 'inactive' | 'forgotten';

export function questionOutcome(
  status: RowStatus,
  bundle: BundleKnown,
  /** The row's `expired_by` (the session failure's code that expired it), if any. */
  expiredBy: unknown,
): QuestionOutcome {
  switch (status) {
    case 'pending':
      return bundle === 'active'
        ? 'waiting'
        : bundle === 'forgotten'
          ? 'unavailable'
          : 'superseded';
    case 'answered':
      return 'answered';
    case 'rejected':
      return 'skipped';
    case 'expired':
      // Ended with its session because the person its agent acted for was deleted or removed.
      if (expiredBy === 'owner_deleted') return 'expiredOwnerDeleted';
      return expiredBy === 'owner_removed' ? 'expiredOwnerRemoved' : 'expired';
    case 'cancelled':
      return 'cancelled';
  }
}
