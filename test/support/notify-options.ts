/** Notification timings for tests: a notice leaves within a few hundred milliseconds, and retries fast. */
import { expect } from 'vitest';
import type { NotifyOptions, RunningServer } from '../../src/server.js';
import { eventually } from './clarification-harness.js';
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

/** A one-question ask whose notice the suites watch for. */
export const SHIP_IT = {
  questions: [
    {
      prompt: 'Ship it?',
      options: [
        { label: 'Yes', description: 'now' },
        { label: 'No', description: 'later' },
      ],
    },
  ],
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

/**
 * Resolves once the server owes no notice: a reconcile pass begun after the
 * call inserts or re-arms nothing, and every outbox row is delivered or given
 * up. Only outbox rows are sent, so until something changes no more notices
 * leave, and a receiver's count read after this is final; a fixed sleep only
 * hoped so, and cost its full length every time.
 */
export async function noticesSettled(server: RunningServer, timeoutMs = 15_000): Promise<void> {
  await eventually(async () => {
    const pass = await server.reconcileNotices();
    if (pass.inserted + pass.rearmed > 0) return false;
    const owed = await server.store.db
      .selectFrom('notification_outbox')
      .select('id')
      .where('delivered_at', 'is', null)
      .where('gave_up_at', 'is', null)
      .execute();
    return owed.length === 0;
  }, timeoutMs);
}
