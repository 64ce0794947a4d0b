/**
 * Delivery when several replicas share the store (issue 16). One replica
 * delivers each claim, the one `deliveryRoute` names: where its live wait
 * runs, else where its agent runs, else where it was claimed. A replica that
 * delivers a claim it did not see asked here takes it in the store first
 * (`takeDelivery`, or the claim itself when the responder's replica knew
 * before claiming that the delivery is its own), so two replicas that judge
 * liveness a moment apart never both deliver. A responder whose claim belongs
 * elsewhere announces it and reads the end from the store, within the
 * delivery budget.
 */
import { ELSEWHERE_ANNOUNCE_INTERVAL_MS, ELSEWHERE_RECHECK_MS } from '../tunables.js';
import {
  detachClaim,
  messagesByPendingId,
  takeDelivery,
  type DeliveryOwners,
} from '../store/index.js';
import { readBundle, type Bundle } from './bundle.js';
import { startBudget } from '../support/index.js';
import type { ClaimReplicas, ClarificationDeps } from './context.js';
import type { DeliveryOutcome } from './delivery-plan.js';
import { deliveryRoute, type DeliveryRoute } from './delivery-route.js';

export type Routed = 'here' | 'elsewhere';

/** Where a claim goes, as judged before it: `undecided` leaves it to `routeClaim`. */
export type ClaimRoute = Routed | 'undecided';

async function routeOf(
  replicas: ClaimReplicas,
  bundle: Bundle,
  options: { detached: boolean; origin: string; waiterHere: boolean },
  read?: DeliveryOwners,
): Promise<DeliveryRoute> {
  // A live wait here decides the route alone: the owners' read would be a round trip for nothing.
  if (options.waiterHere) {
    return deliveryRoute({ ...options, here: replicas.id, askedOn: undefined, holder: undefined });
  }
  const askedOn = options.detached ? undefined : bundle.askedOn;
  // Owners read with the bundle judged its asking replica even if detached; a detached one has none.
  const owners = read
    ? { holder: read.holder, askedOnLive: askedOn !== undefined && read.askedOnLive }
    : await replicas.owners(bundle.sessionId, askedOn);
  return deliveryRoute({
    here: replicas.id,
    waiterHere: options.waiterHere,
    askedOn: owners.askedOnLive ? askedOn : undefined,
    holder: owners.holder,
    origin: options.origin,
  });
}

/**
 * Before a claim of `bundle` that no live wait here holds, judged as
 * `routeClaim` would just after the claim: `here` when this replica delivers
 * it (the claim takes the delivery itself, one statement fewer per answer),
 * `elsewhere` when another replica does (the claim announces itself in its
 * own commit, so that replica starts a round trip sooner), `undecided` when
 * `routeClaim` must do more than either.
 */
export async function routeBeforeClaim(
  replicas: ClaimReplicas,
  bundle: Bundle,
  owners?: DeliveryOwners,
): Promise<ClaimRoute> {
  const detached = bundle.rows.some((row) => row.detached);
  const route = await routeOf(
    replicas,
    bundle,
    { detached, origin: replicas.id, waiterHere: false },
    owners,
  );
  return route.kind === 'waitEnded' ? 'undecided' : route.kind;
}

/**
 * Routes a claim of `bundle` (its rows `ids`) that no live wait here holds:
 * `here` once this replica took it, `elsewhere` otherwise. Announces the
 * claim when it moves on: always for its responder, and for a replica whose
 * own wait on it ended.
 */
export async function routeClaim(
  deps: ClarificationDeps,
  replicas: ClaimReplicas,
  bundle: Bundle,
  ids: readonly string[],
  options: { origin: string; waiterHere: boolean; announce: boolean },
): Promise<Routed> {
  const route = (detached: boolean) => routeOf(replicas, bundle, { ...options, detached });
  let announce = options.announce;
  let next = await route(bundle.rows.some((row) => row.detached));
  if (next.kind === 'waitEnded') {
    await detachClaim(deps.store, ids);
    announce = true;
    next = await route(true);
  }
  if (next.kind !== 'elsewhere') {
    if (await takeDelivery(deps.store, ids, replicas.id)) return 'here';
  } else if (announce) {
    await replicas.announce(bundle.pendingId);
  }
  return 'elsewhere';
}

type ClaimState = 'delivering' | 'delivered' | 'put_back';

function claimState(bundle: Bundle, ids: ReadonlySet<string>): ClaimState {
  const rows = bundle.rows.filter((row) => ids.has(row.id));
  if (rows.length === 0) return 'put_back';
  if (rows.some((row) => row.deliveryPending)) return 'delivering';
  const kept = rows.every((row) => row.status === 'answered' || row.status === 'rejected');
  return kept ? 'delivered' : 'put_back';
}

/**
 * The responder's side of a claim delivered elsewhere: reads the claim at
 * every wake about its session (and every `ELSEWHERE_RECHECK_MS`) until its
 * intent is gone, announcing it again now and then in case a wake was lost.
 */
export async function awaitDeliveryElsewhere(
  deps: ClarificationDeps,
  replicas: ClaimReplicas,
  bundle: Bundle,
  ids: readonly string[],
): Promise<DeliveryOutcome> {
  const { clock } = deps.store;
  const budget = startBudget(deps.budgets.deliveryMs, clock, deps.timers);
  const claimed = new Set(ids);
  let announcedAt = clock.nowMs();
  try {
    for (;;) {
      const read = readBundle(
        bundle.pendingId,
        await messagesByPendingId(deps.store, bundle.pendingId),
      );
      const state = read.ok ? claimState(read.bundle, claimed) : 'put_back';
      if (state === 'delivered') return 'elsewhere';
      if (state === 'put_back') return 'restored';
      const remainingMs = budget.remainingMs();
      if (remainingMs <= 0) return 'elsewhere_unconfirmed';
      if (clock.nowMs() - announcedAt >= ELSEWHERE_ANNOUNCE_INTERVAL_MS) {
        await replicas.announce(bundle.pendingId);
        announcedAt = clock.nowMs();
      }
      await replicas.changed(
        bundle.sessionId,
        Math.min(ELSEWHERE_RECHECK_MS, remainingMs),
        budget.signal,
      );
    }
  } finally {
    budget.dispose();
  }
}
