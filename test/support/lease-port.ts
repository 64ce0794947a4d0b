/**
 * A `SessionLeasePort` standing in for one replica's leases in turns suites:
 * every lease is this replica's unless the test says otherwise, through the
 * answers it overrides.
 */
import type { SessionLeasePort } from '../../src/turns/context.js';

export function leasePort(overrides: Partial<SessionLeasePort> = {}): SessionLeasePort {
  return {
    acquire: () => Promise.resolve(true),
    release: () => Promise.resolve(),
    tellHolder: () => Promise.resolve(),
    leaveQueue: () => Promise.resolve(),
    confirm: () => Promise.resolve(true),
    isFenced: () => false,
    liveReplicas: () => Promise.resolve(new Set<string>()),
    unlessStarted: async (_sessionId, work) => {
      await work();
      return true;
    },
    ...overrides,
  };
}
