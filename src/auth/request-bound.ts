/**
 * A change a request makes to credentials, within what is left of its
 * credential bound (`CREDENTIAL_LOOKUP_MAX_MS` less the lookup's own wait):
 * past it the request fails as a storage fault (a 503 with `Retry-After`),
 * and the transaction checks the bound as its last step, so a late one rolls
 * back rather than change what a caller told to retry still holds.
 */
import { EXHAUSTED, withinFreshBudget, type Budget } from '../support/index.js';
import { StorageUnavailableError, type RepoContext, type Store } from '../store/index.js';
import { CREDENTIAL_LOOKUP_BOUND, type CredentialLookupBound } from './tokens.js';

/** A request's bound on the store, less what its credential lookup already waited. */
export interface RequestBound {
  readonly waitedMs: number;
  readonly bound?: CredentialLookupBound;
}

export function boundedTransaction<T>(
  store: Store,
  request: RequestBound,
  what: string,
  work: (tx: RepoContext) => Promise<T>,
): Promise<T> {
  const bound = request.bound ?? CREDENTIAL_LOOKUP_BOUND;
  return withinBound(
    store,
    { ...bound, ms: Math.max(0, bound.ms - request.waitedMs) },
    what,
    (budget) =>
      store.transaction(
        async (tx) => {
          const result = await work(tx);
          budget.check();
          return result;
        },
        { signal: budget.signal, remainingMs: () => budget.remainingMs() },
      ),
  );
}

/** Runs `work` within `bound`; past it, a storage fault, and nobody waits for the work. */
export async function withinBound<T>(
  store: Store,
  bound: CredentialLookupBound,
  what: string,
  work: (budget: Budget) => Promise<T>,
): Promise<T> {
  const outcome = await withinFreshBudget(bound.ms, store.clock, bound.timers, work);
  if (outcome === EXHAUSTED) {
    throw new StorageUnavailableError('unreachable', `no answer to ${what} within ${bound.ms} ms`);
  }
  return outcome;
}
