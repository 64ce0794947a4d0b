/** Notification timings for tests: a notice leaves within a few hundred milliseconds, and retries fast. */
import type { NotifyOptions } from '../../src/server.js';

export const FAST_NOTIFY: NotifyOptions = {
  tunables: {
    debounceMs: 20,
    reconcileIntervalMs: 150,
    pollIntervalMs: 150,
    retryBaseMs: 100,
    retryMaxMs: 400,
    sendTimeoutMs: 3_000,
    claimLeaseMs: 5_000,
    stopTimeoutMs: 1_000,
  },
  random: () => 0,
};
