/**
 * A newer turn became a session's current one (a message admitted, a
 * successor turn marked attempted): every pending bundle of an older turn is
 * superseded (DESIGN §5), final, and nothing rewrites its rows. So nothing
 * in the store tells a wait on it to look: without this, an asker's live
 * wait and `awaitDecision` on it would run to their timeouts and answer
 * "still open", where a new call reads `not_active` at once.
 *
 * Owns: which of the waits here are on a bundle the new turn superseded.
 * Invariant: only a wait whose bundle reads superseded (pending, no longer
 * in its session's current turn, the session not ended) ends; a bundle
 * asked in the new turn meanwhile stays waited on. Other replicas run this on the session's
 * wake (`ClarificationService.supersededWakes`), and for every session they
 * wait on at each poll, since a wake may be lost. One look reads every
 * bundle it concerns at once, whatever the number of waits: three
 * statements at most, not three a wait.
 */
import type { Logger } from '../observability/index.js';
import {
  currentRowIds,
  liveSessionIds,
  messagesByPendingIds,
  type MessageRecord,
  type Store,
} from '../store/index.js';
import { pausePoint } from '../support/index.js';
import { readBundle, type RowStatus } from './bundle.js';
import type { DecisionBoard } from './decisions.js';
import type { LiveWaiters } from './waiters.js';

/** A bundle nobody can answer any more, and no answer is coming to: expired or cancelled. */
const CLOSED: ReadonlySet<RowStatus> = new Set<RowStatus>(['expired', 'cancelled']);

export interface SupersededWaitsDeps {
  store: Store;
  waiters: LiveWaiters;
  decisions?: DecisionBoard;
  logger: Logger;
}

/** The sessions with a wait here whose bundle's session is known: those a newer turn may concern. */
export function sessionsWaitedOn(deps: SupersededWaitsDeps): string[] {
  return [...new Set([...deps.waiters.sessionIds(), ...(deps.decisions?.sessionIds() ?? [])])];
}

/**
 * Ends the waits here on the given sessions' superseded bundles; returns
 * their pending IDs. Never throws: a failed read leaves those waits to their
 * own bounds, as before. Once `stop` aborts (the service closes, its store
 * next) it reads nothing more.
 */
export async function endSupersededWaits(
  deps: SupersededWaitsDeps,
  sessionIds: readonly string[],
  stop?: AbortSignal,
): Promise<string[]> {
  try {
    return await endWaits(deps, sessionIds, stop);
  } catch (error) {
    deps.logger.error(
      { err: error, session_ids: sessionIds },
      'waits on superseded questions not ended',
    );
    return [];
  }
}

/** A bundle waited on here, and the session the wait was started for. */
interface Waited {
  readonly sessionId: string;
  /** An asker's live wait, known to be of this session; a listener may not be. */
  readonly live: boolean;
}

function waitsOf(deps: SupersededWaitsDeps, sessionIds: readonly string[]): Map<string, Waited> {
  const waited = new Map<string, Waited>();
  for (const sessionId of sessionIds) {
    const asked = new Set(deps.waiters.pendingIdsOf(sessionId));
    for (const pendingId of [...asked, ...(deps.decisions?.listenedIn(sessionId) ?? [])]) {
      const live = asked.has(pendingId) || waited.get(pendingId)?.live === true;
      waited.set(pendingId, { sessionId, live });
    }
  }
  return waited;
}

function byPendingId(messages: readonly MessageRecord[]): Map<string, MessageRecord[]> {
  const bundles = new Map<string, MessageRecord[]>();
  for (const message of messages) {
    const pendingId = message.metadata.pending_id;
    if (typeof pendingId !== 'string') continue;
    const rows = bundles.get(pendingId);
    if (rows) rows.push(message);
    else bundles.set(pendingId, [message]);
  }
  return bundles;
}

async function endWaits(
  deps: SupersededWaitsDeps,
  sessionIds: readonly string[],
  stop: AbortSignal | undefined,
): Promise<string[]> {
  const waited = waitsOf(deps, sessionIds);
  if (waited.size === 0) return [];
  // A shutdown race test holds the check here, before its reads.
  const paused = pausePoint('superseded_waits.before_read');
  if (paused) await paused;
  if (stop?.aborted) return [];
  const bundles = byPendingId(await messagesByPendingIds(deps.store, [...waited.keys()]));
  const ended: string[] = [];
  const end = (pendingId: string, reason: 'superseded' | 'cancelled') => {
    deps.waiters.end(pendingId, reason);
    deps.decisions?.ended(pendingId);
    ended.push(pendingId);
  };
  const open: { pendingId: string; sessionId: string; rowIds: string[] }[] = [];
  for (const [pendingId, { sessionId, live }] of waited) {
    const read = readBundle(pendingId, bundles.get(pendingId) ?? []);
    if (!read.ok) {
      // Its rows went with its session, deleted on another replica: as `deleting` ends it there.
      if (live) end(pendingId, 'cancelled');
      continue;
    }
    if (read.bundle.sessionId !== sessionId) continue;
    const rows = read.bundle.rows;
    // Closed on another replica (its session ended, a person cancelled it): as there.
    if (live && rows.every((row) => CLOSED.has(row.status))) {
      end(pendingId, 'cancelled');
      continue;
    }
    // Decided bundles have their own notices; only a pending one is superseded.
    if (rows.every((row) => row.status === 'pending'))
      open.push({ pendingId, sessionId, rowIds: rows.map((row) => row.id) });
  }
  if (open.length === 0 || stop?.aborted) return ended;
  const current = await currentRowIds(
    deps.store,
    open.flatMap((bundle) => bundle.rowIds),
  );
  const stale = open.filter((bundle) => !bundle.rowIds.every((id) => current.has(id)));
  if (stale.length === 0 || stop?.aborted) return ended;
  // Read after the rows: an ended session's are not current either, yet not superseded; its
  // end expires them and says so.
  const live = await liveSessionIds(
    deps.store,
    stale.map((bundle) => bundle.sessionId),
  );
  for (const bundle of stale) if (live.has(bundle.sessionId)) end(bundle.pendingId, 'superseded');
  return ended;
}
