/**
 * `GET /healthz`'s reply, the same shape with 200 and 503: what a load
 * balancer and an operator read of one server. Whatever the server knows from
 * memory (its replica ID, its wake-up listener) is always there; what only
 * the database can say (this replica's lease count) is `unknown` when the
 * database does not answer, and left out while the server drains (it reads
 * nothing then, so it answers at once).
 */
import { z } from 'zod';

export const HEALTH_STATUSES = ['ok', 'degraded', 'unavailable', 'draining'] as const;
export const HEALTH_LISTENER_STATES = ['listening', 'reconnecting', 'local'] as const;
export type HealthListenerState = (typeof HEALTH_LISTENER_STATES)[number];
/** `retaking`: its lock connection ended and it takes the lock again; the others read it dead. */
export const HEALTH_LOCK_STATES = ['held', 'retaking'] as const;
export type HealthLockState = (typeof HEALTH_LOCK_STATES)[number];

export const healthReplica = z
  .object({
    id: z.string(),
    /** Session leases this replica holds, or `unknown` when the database did not answer. */
    leases: z.union([z.number().int().nonnegative(), z.literal('unknown')]).optional(),
    /** The cross-replica wake-up listener: `local` on SQLite (one server). */
    listener: z.enum(HEALTH_LISTENER_STATES),
    /** Its replica lock; `degraded` (503) while `retaking`. */
    lock: z.enum(HEALTH_LOCK_STATES),
  })
  .meta({ id: 'HealthReplica' });

export const healthReply = z
  .object({
    status: z.enum(HEALTH_STATUSES),
    driver: z.enum(['sqlite', 'postgres']),
    schema: z.object({ state: z.literal('ready'), steps: z.number().int().nonnegative() }),
    /** Whether the database answered the check within `HEALTH_CHECK_MAX_MS`; absent while draining. */
    database: z.enum(['reachable', 'unreachable']).optional(),
    replica: healthReplica.optional(),
  })
  .meta({ id: 'Health' });
export type HealthReply = z.infer<typeof healthReply>;
