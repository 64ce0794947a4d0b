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
 * wait on at each poll, since a wake may be lost.
 */
import type { Logger } from '../observability/index.js';
import {
  getSession,
  messagesByPendingId,
  rowsStillCurrent,
  TERMINAL_SESSION_STATES,
  type SessionState,
  type Store,
} from '../store/index.js';
import { pausePoint } from '../support/index.js';
import { readBundle, type RowStatus } from './bundle.js';
import type { DecisionBoard } from './decisions.js';
import type { LiveWaiters } from './waiters.js';

const TERMINAL: ReadonlySet<SessionState> = new Set(TERMINAL_SESSION_STATES);
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
 * Ends the waits here on the session's superseded bundles; returns their
 * pending IDs. Never throws: a failed read leaves those waits to their own
 * bounds, as before. Once `stop` aborts (the service closes, its store next)
 * it reads nothing more.
 */
export async function endSupersededWaits(
  deps: SupersededWaitsDeps,
  sessionId: string,
  stop?: AbortSignal,
): Promise<string[]> {
  try {
    return await endWaits(deps, sessionId, stop);
  } catch (error) {
    deps.logger.error(
      { err: error, session_id: sessionId },
      'waits on superseded questions not ended',
    );
    return [];
  }
}

async function sessionLive(store: Store, sessionId: string): Promise<boolean> {
  const session = await getSession(store, sessionId);
  return session !== undefined && !TERMINAL.has(session.state);
}

async function endWaits(
  deps: SupersededWaitsDeps,
  sessionId: string,
  stop: AbortSignal | undefined,
): Promise<string[]> {
  // Live waits here are known to be of this session; a listener may not be.
  const live = new Set(deps.waiters.pendingIdsOf(sessionId));
  const candidates = new Set([...live, ...(deps.decisions?.listenedIn(sessionId) ?? [])]);
  const ended: string[] = [];
  const end = (pendingId: string, reason: 'superseded' | 'cancelled') => {
    deps.waiters.end(pendingId, reason);
    deps.decisions?.ended(pendingId);
    ended.push(pendingId);
  };
  for (const pendingId of candidates) {
    // A shutdown race test holds the check here, before its reads.
    const paused = pausePoint('superseded_waits.before_read');
    if (paused) await paused;
    if (stop?.aborted) break;
    const read = readBundle(pendingId, await messagesByPendingId(deps.store, pendingId));
    if (!read.ok) {
      // Its rows went with its session, deleted on another replica: as `deleting` ends it there.
      if (live.has(pendingId)) end(pendingId, 'cancelled');
      continue;
    }
    if (read.bundle.sessionId !== sessionId) continue;
    const rows = read.bundle.rows;
    // Closed on another replica (its session ended, a person cancelled it): as there.
    if (live.has(pendingId) && rows.every((row) => CLOSED.has(row.status))) {
      end(pendingId, 'cancelled');
      continue;
    }
    // Decided bundles have their own notices; only a pending one is superseded.
    if (!rows.every((row) => row.status === 'pending')) continue;
    if (
      await rowsStillCurrent(
        deps.store,
        rows.map((row) => row.id),
      )
    )
      continue;
    // Read after the rows: an ended session's are not current either, yet not superseded; its
    // end expires them and says so.
    if (!(await sessionLive(deps.store, sessionId))) return ended;
    end(pendingId, 'superseded');
  }
  return ended;
}
