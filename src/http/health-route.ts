/**
 * `GET /healthz`: the database driver, the schema state, whether the database
 * answers, and (issue 16) which replica answered, how many session leases it
 * holds and the state of its wake-up listener. A replica that is stopping
 * says `draining` with a 503 until it stops listening.
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
    };
    return c.json({
      status: 'ok',
      driver,
      schema,
      database: 'reachable',
      ...(replica ? { replica } : {}),
    });
  });
}
