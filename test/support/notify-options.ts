/** Notification timings for tests: a notice leaves within a few hundred milliseconds, and retries fast. */
import { expect } from 'vitest';
import type { NotifyOptions } from '../../src/server.js';
import type { ApiCall } from './in-process-server.js';

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

/** Adds a channel for the caller of `api` and returns its ID; anything but 201 fails the test. */
export async function addChannel(api: ApiCall, body: Record<string, unknown>): Promise<string> {
  const created = await api<{ channel: { id: string } }>(
    'POST',
    '/api/v1/notification-channels',
    body,
  );
  expect(created.status).toBe(201);
  return created.json.channel.id;
}
