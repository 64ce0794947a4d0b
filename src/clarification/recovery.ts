/**
 * Start-up recovery (DESIGN §5.1 step 5). Runs before any work is admitted;
 * any error fails start-up. It restores state without re-running finished
 * effects:
 *
 * 1. Reservations: an attempted one (or one a message already refers to) may
 *    have reached the agent, so it is kept and the answer stays terminal;
 *    an unattempted one sent nothing, so it is deleted and its rows restored.
 * 2. Remaining claims with an intent: restored to pending while still
 *    current, otherwise retired (intent cleared, answer kept as history).
 *    An external agent's claim is finished instead, as its delivery would
 *    have finished it: its delivery is the intent's clear alone, so nothing
 *    of it can run twice, and its decision is kept for the agent to collect
 *    (`claim-intent.ts`) rather than asked of the person again.
 * 3. Turns the restart cut off are closed, and an answer handed off in one
 *    of them gets a note that the agent may not have received it, or a turn
 *    the agent was at work on the note that it ended and its message must be
 *    sent again, for `loss` (`interrupted-turns.ts`).
 * 4. Bundles still marked attached are detached: no call waits on them
 *    (a clean stop detaches them as its waits end; a crash could not), so
 *    the person is told the agent moved on and the answer is kept for it.
 *
 * Nothing is live after a restart, so restored bundles are detached. With
 * several replicas on one database it acts only on `scope`: the sessions no
 * live replica holds at start-up, or those a takeover just took (issue 16).
 * Both leave alone the claims `leave` names, and the successor turns
 * reserved for them: a live replica is delivering them or will route them
 * (`claimUnderWay`). Restoring one, or deleting its reservation, would undo
 * a delivery under way: the agent
 * would get an answer the bundle no longer holds, and a second person could
 * win it. A session nobody holds (an external agent's) is no sign that
 * nobody delivers its claims.
 */
import { EXTERNAL_AGENT_PROFILE } from '../agents/index.js';
import type { SessionWriter } from '../events/index.js';
import type { Logger } from '../observability/index.js';
import { clearClaimIntent } from './claim-intent.js';
import { closeInterruptedTurns, type InterruptedTurnsReport } from './interrupted-turns.js';
import {
  attachedBundles,
  clearDeliveryIntent,
  detachBundleRows,
  deleteUnattemptedReservation,
  getSession,
  messagesByPendingId,
  pendingReservations,
  publishReservedTurn,
  restoreClaim,
  retireClaim,
  rowsWithDeliveryIntent,
  turnHasMessages,
  type MessageRecord,
  type SessionScope,
  type Store,
  type TurnRecord,
} from '../store/index.js';
import type { TurnInterruptedLoss } from '../wire/index.js';

export interface RecoveryReport extends InterruptedTurnsReport {
  reservationsKept: number;
  reservationsRolledBack: number;
  claimsRestored: number;
  claimsRetired: number;
  /** External agents' claims finished and kept for their agent to collect. */
  claimsRecorded: number;
  bundlesDetached: number;
}

function recordedIds(turn: TurnRecord): string[] {
  const ids = turn.metadata.prompt_dispatch_clarification_message_ids;
  return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
}

function isTruthy(value: unknown): boolean {
  return value === true || value === 'true' || value === '1' || value === 1;
}

function claimStatus(rows: readonly MessageRecord[]): 'answered' | 'rejected' | undefined {
  const statuses = new Set(rows.map((row) => row.metadata.status));
  if (statuses.size !== 1) return undefined;
  const [status] = statuses;
  return status === 'answered' || status === 'rejected' ? status : undefined;
}

/**
 * Several replicas: whether a live replica may be handing over this claim.
 * Every delivery runs under its taker's name (`delivery_by`, set by the
 * claim or by `takeDelivery`), so a claim taken by a replica in `live` is
 * under way, and one nobody took is being routed by its responder's replica
 * or will be by any replica's poll (`untakenClaims`), which delivers
 * it rather than putting it back. Only a claim whose taker is gone is
 * recovery's to restore.
 */
export function claimUnderWay(rows: readonly MessageRecord[], live: ReadonlySet<string>): boolean {
  return rows.some((row) => {
    if (!isTruthy(row.metadata.response_delivery_pending)) return false;
    const by = row.metadata.delivery_by;
    return typeof by !== 'string' || live.has(by);
  });
}

export interface RecoveryDeps {
  store: Store;
  sessions: SessionWriter;
}

/**
 * A replica's start-up recovery: alone on its database (`liveElsewhere`
 * undefined) every claim in `scope` is its to recover; beside live replicas,
 * only those no live replica delivers or routes.
 */
export function recoverAtStartUp(
  deps: RecoveryDeps,
  logger: Logger,
  scope: SessionScope,
  liveElsewhere: ReadonlySet<string> | undefined,
): Promise<RecoveryReport> {
  const leave =
    liveElsewhere &&
    ((_: string, rows: readonly MessageRecord[]) => claimUnderWay(rows, liveElsewhere));
  return recoverClarifications(deps, logger, scope, leave, { live: liveElsewhere });
}

export interface RecoveryOptions {
  /**
   * The replicas a wait may still run on. A bundle asked on one of them stays
   * attached: an external agent's session is held by no replica, so being in
   * `scope` says nothing of where its ask waits.
   */
  live?: ReadonlySet<string>;
  /** Why the turns it closes were cut off: this server's restart, or a dead replica's. */
  loss?: TurnInterruptedLoss;
}

export async function recoverClarifications(
  { store, sessions }: RecoveryDeps,
  logger: Logger,
  scope: SessionScope = { kind: 'all' },
  leave?: (pendingId: string, rows: readonly MessageRecord[]) => boolean,
  { live = new Set(), loss = 'restart' }: RecoveryOptions = {},
): Promise<RecoveryReport> {
  const report: RecoveryReport = {
    reservationsKept: 0,
    reservationsRolledBack: 0,
    claimsRestored: 0,
    claimsRetired: 0,
    claimsRecorded: 0,
    bundlesDetached: 0,
    turnsClosed: 0,
    deliveriesUnconfirmed: 0,
    turnsInterrupted: 0,
  };

  for (const turn of await pendingReservations(store, scope)) {
    const ids = recordedIds(turn);
    // A delivery under way here reserved it: deleting it would fail that delivery's mark.
    const pendingId = turn.metadata.prompt_dispatch_clarification_pending_id;
    if (
      leave &&
      typeof pendingId === 'string' &&
      leave(pendingId, await messagesByPendingId(store, pendingId))
    ) {
      continue;
    }
    await sessions.write(turn.task_session_id, async ({ tx, updated }) => {
      if (
        isTruthy(turn.metadata.prompt_dispatch_attempted) ||
        (await turnHasMessages(tx, turn.id))
      ) {
        updated(...(await clearDeliveryIntent(tx, ids)));
        await publishReservedTurn(tx, turn.id);
        report.reservationsKept++;
        return;
      }
      if (!(await deleteUnattemptedReservation(tx, turn.id))) {
        throw new Error(`reservation ${turn.id} could not be rolled back`);
      }
      const restored = await restoreClaim(tx, ids, 'answered', { detached: true });
      updated(...(restored ?? (await clearDeliveryIntent(tx, ids))));
      report.reservationsRolledBack++;
    });
  }

  const byBundle = new Map<string, MessageRecord[]>();
  for (const row of await rowsWithDeliveryIntent(store, scope)) {
    const pendingId = String(row.metadata.pending_id);
    byBundle.set(pendingId, [...(byBundle.get(pendingId) ?? []), row]);
  }
  for (const [pendingId, rows] of byBundle) {
    const sessionId = rows[0]?.task_session_id;
    if (sessionId === undefined || leave?.(pendingId, rows) === true) continue;
    const ids = rows.map((row) => row.id);
    const status = claimStatus(rows);
    // What this read judged: a replica that took the delivery since keeps it.
    const by = rows[0]?.metadata.delivery_by;
    const takenBy = typeof by === 'string' ? by : null;
    if ((await getSession(store, sessionId))?.agent_profile === EXTERNAL_AGENT_PROFILE) {
      const claim = { sessionId, pendingId, ids, forCollection: true, takenBy };
      if (await clearClaimIntent(sessions, claim)) report.claimsRecorded++;
      else logger.info({ pending_id: pendingId }, 'left a claim taken or delivered meanwhile');
      continue;
    }
    await sessions.write(sessionId, async ({ tx, updated }) => {
      const restored = status && (await restoreClaim(tx, ids, status, { detached: true, takenBy }));
      if (restored) {
        updated(...restored);
        report.claimsRestored++;
        return;
      }
      const retired = await retireClaim(tx, ids, takenBy);
      if (retired.length === 0) {
        logger.info({ pending_id: pendingId }, 'left a claim taken or delivered meanwhile');
        return;
      }
      updated(...retired);
      report.claimsRetired++;
      logger.info({ pending_id: pendingId }, 'retired a claim whose bundle moved on');
    });
  }
  Object.assign(report, await closeInterruptedTurns({ store, sessions }, logger, scope, loss));
  for (const bundle of await attachedBundles(store, scope)) {
    if (bundle.askedOn !== undefined && live.has(bundle.askedOn)) continue;
    await sessions.write(bundle.sessionId, async ({ tx, updated }) => {
      const detached = await detachBundleRows(tx, bundle.pendingId);
      if (detached.length === 0) return;
      updated(...detached);
      report.bundlesDetached++;
    });
  }
  logger.info({ ...report }, 'clarification recovery done');
  return report;
}
