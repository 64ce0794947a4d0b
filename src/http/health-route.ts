/**
 * `GET /healthz`: the database driver, the schema state, whether the database
 * answers, and (issue 16) which replica answered, how many session leases it
 * holds, the state of its wake-up listener and whether it holds its replica
 * lock. A replica that is stopping says `draining` with a 503 until it stops
 * listening; one taking its lock again says `degraded` with a 503, since the
 * others read it dead meanwhile and may take its sessions over.
 *
 * Bounds: the database check (a ping, then the lease count) gets
 * `HEALTH_CHECK_MAX_MS`; a database that does not answer by then (frozen, cut
 * off) is `unreachable` at once, not after the store's statement reply bound,
 * so a load balancer probing every second or two hears of it in time. Every
 * 503 carries the catalogue's `Retry-After` (`storage_unavailable` when the
 * database does not answer, `shutting_down` while draining), and says what
 * memory knows of the replica; only the lease count needs the database.
 */
import type { Env, Hono } from 'hono';
import type { Store } from '../store/index.js';
import { EXHAUSTED, withinFreshBudget, systemTimers, type Timers } from '../support/index.js';
import { HEALTH_CHECK_MAX_MS } from '../tunables.js';
import type { HealthListenerState, HealthLockState, HealthReply } from '../wire/index.js';
import { retryAfterHeaders } from './errors.js';

/** What `/healthz` says of this server as one replica; the composition root supplies it. */
export interface ReplicaHealth {
  readonly id: string;
  /** Session leases this replica holds now (a store read). */
  leases(): Promise<number>;
  /** The cross-replica wake-up listener's state: `listening`, `reconnecting`, or `local` (SQLite, one server). */
  listener(): HealthListenerState;
  /** Its replica lock: `held`, or `retaking` after its connection ended (the others read it dead). */
  lock(): HealthLockState;
}

/** How long the database check may take, and the timers that say so (on the store's clock). */
export interface HealthCheckBound {
  readonly ms: number;
  readonly timers: Timers;
}

const HEALTH_CHECK_BOUND: HealthCheckBound = { ms: HEALTH_CHECK_MAX_MS, timers: systemTimers };

export interface HealthDeps {
  readonly store: Pick<Store, 'driver' | 'schema' | 'ping' | 'clock'>;
  readonly replica?: ReplicaHealth;
  /** True once a graceful stop began: 503 `draining`, so a load balancer sends nothing new. */
  readonly draining?: () => boolean;
  /** `HEALTH_CHECK_MAX_MS` on the system's timers unless a test passes its own. */
  readonly checkBound?: HealthCheckBound;
}

export function registerHealthRoute<E extends Env>(app: Hono<E>, deps: HealthDeps): void {
  const bound = deps.checkBound ?? HEALTH_CHECK_BOUND;
  app.get('/healthz', async (c) => {
    const { driver, schema } = deps.store;
    const { replica } = deps;
    if (deps.draining?.() === true) {
      const body: HealthReply = {
        status: 'draining',
        driver,
        schema,
        ...(replica
          ? { replica: { id: replica.id, listener: replica.listener(), lock: replica.lock() } }
          : {}),
      };
      return c.json(body, 503, retryAfterHeaders('shutting_down'));
    }
    const leases = await checkDatabase(deps, bound);
    const known = replica && { id: replica.id, listener: replica.listener(), lock: replica.lock() };
    if (leases === UNREACHABLE) {
      const body: HealthReply = {
        status: 'unavailable',
        driver,
        schema,
        database: 'unreachable',
        ...(known ? { replica: { ...known, leases: 'unknown' } } : {}),
      };
      return c.json(body, 503, retryAfterHeaders('storage_unavailable'));
    }
    const body: HealthReply = {
      status: known?.lock === 'retaking' ? 'degraded' : 'ok',
      driver,
      schema,
      database: 'reachable',
      ...(known && leases !== undefined ? { replica: { ...known, leases } } : {}),
    };
    if (body.status === 'ok') return c.json(body);
    return c.json(body, 503, retryAfterHeaders('temporarily_unavailable'));
  });
}

const UNREACHABLE = Symbol('unreachable');

/**
 * The ping, then this replica's lease count (`undefined` on a server that is
 * no replica), within `bound`; `UNREACHABLE` when either fails or the bound
 * passes first. The reads left behind end at the store's own bounds.
 */
async function checkDatabase(
  deps: HealthDeps,
  bound: HealthCheckBound,
): Promise<number | undefined | typeof UNREACHABLE> {
  const check = async () => {
    await deps.store.ping();
    return deps.replica?.leases();
  };
  try {
    const leases = await withinFreshBudget(bound.ms, deps.store.clock, bound.timers, check);
    return leases === EXHAUSTED ? UNREACHABLE : leases;
  } catch {
    // Whatever the database answered, it did not answer the check: that is the probe's verdict.
    return UNREACHABLE;
  }
}
