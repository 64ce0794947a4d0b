/**
 * `GET /healthz`: the database driver, the schema state, whether the database
 * answers, and (issue 16) which replica answered, how many session leases it
 * holds, the state of its wake-up listener and whether it holds its replica
 * lock. A replica that is stopping says `draining` with a 503 until it stops
 * listening; one taking its lock again says `degraded` with a 503, since the
 * others read it dead meanwhile and may take its sessions over.
 */
import type { Env, Hono } from 'hono';
import type { Store } from '../store/index.js';

/** What `/healthz` says of this server as one replica; the composition root supplies it. */
export interface ReplicaHealth {
  readonly id: string;
  /** Session leases this replica holds now. */
  leases(): Promise<number>;
  /** The cross-replica wake-up listener's state: `listening`, `reconnecting`, or `local` (SQLite, one server). */
  listener(): string;
  /** Its replica lock: `held`, or `retaking` after its connection ended (the others read it dead). */
  lock(): 'held' | 'retaking';
}

export interface HealthDeps {
  readonly store: Pick<Store, 'driver' | 'schema' | 'ping'>;
  readonly replica?: ReplicaHealth;
  /** True once a graceful stop began: 503 `draining`, so a load balancer sends nothing new. */
  readonly draining?: () => boolean;
}

export function registerHealthRoute<E extends Env>(app: Hono<E>, deps: HealthDeps): void {
  app.get('/healthz', async (c) => {
    const { driver, schema } = deps.store;
    if (deps.draining?.() === true) {
      return c.json(
        {
          status: 'draining',
          driver,
          schema,
          ...(deps.replica ? { replica: { id: deps.replica.id } } : {}),
        },
        503,
      );
    }
    try {
      await deps.store.ping();
    } catch {
      return c.json({ status: 'unavailable', driver, schema, database: 'unreachable' }, 503);
    }
    const replica = deps.replica && {
      id: deps.replica.id,
      leases: await deps.replica.leases(),
      listener: deps.replica.listener(),
      lock: deps.replica.lock(),
    };
    const degraded = replica !== undefined && replica.lock !== 'held';
    return c.json(
      {
        status: degraded ? 'degraded' : 'ok',
        driver,
        schema,
        database: 'reachable',
        ...(replica ? { replica } : {}),
      },
      degraded ? 503 : 200,
    );
  });
}
