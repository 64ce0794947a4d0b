/**
 * A Web Push subscription renewed through one replica while another's outbox
 * deletes the channel because the push service said the old subscription is
 * gone (issue 16, one PostgreSQL). The two are ordered on the channel's row:
 * the renewal either moves the channel before the deletion reads it (and
 * nothing is deleted) or finds it gone and says so. A renewal answered as
 * done for a channel that no longer exists leaves the browser believing it
 * still hears, with nothing left to send to it. Here the removal is held at a
 * pause point once it took the row, and the renewal queues behind it.
 */
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { removeChannel } from '../../src/notify/channel-removal.js';
import { firstAdmin, listUserChannels, openStore, type Store } from '../../src/store/index.js';
import { armPause } from '../../src/support/failpoints.js';
import { WEB_PUSH_RENEWAL_PATH } from '../../src/wire/index.js';
import { eventually } from '../support/clarification-harness.js';
import { bearerApi } from '../support/in-process-server.js';
import { inProcessReplicas } from '../support/in-process-replicas.js';
import { addChannel, FAST_NOTIFY } from '../support/notify-options.js';
import { startPushService, type PushServiceStub } from '../support/push-service.js';

const ADMIN_TOKEN = 'web-push-renewal-replicas-token-0123';
/** Within the removal's idle-transaction bound (`PG_IDLE_IN_TRANSACTION_MAX_MS`). */
const HOLD_BOUND_MS = 8_000;

/** How many statements wait on a lock of a channel's row now (replicas wait on others too). */
async function lockWaiters(store: Store): Promise<number> {
  const { rows } = await sql<{ waiting: string }>`
    SELECT count(*) AS waiting FROM pg_stat_activity
    WHERE wait_event_type = 'Lock' AND datname = current_database()
      AND query LIKE '%notification_channels%'`.execute(store.db);
  return Number(rows[0]?.waiting ?? 0);
}

describe('a Web Push renewal on one replica and a removal on another', () => {
  const replicas = inProcessReplicas(ADMIN_TOKEN, { notify: FAST_NOTIFY });
  let push: PushServiceStub | undefined;
  let observer: Store | undefined;

  afterEach(async () => {
    await observer?.close();
    observer = undefined;
    await push?.close();
    push = undefined;
    await replicas.dispose();
  });

  it('a renewal that waited on the deletion of its channel is not found, not done', async () => {
    const database = await replicas.open('postgres', { migrated: true });
    const a = await replicas.serve('replica-a');
    const b = await replicas.serve('replica-b');
    const apiB = bearerApi(b.url, ADMIN_TOKEN);
    push = await startPushService();
    const settings = await apiB<{ web_push_public_key: string }>(
      'GET',
      '/api/v1/notification-settings',
    );
    const old = push.subscribe(settings.json.web_push_public_key);
    const channelId = await addChannel(apiB, {
      kind: 'web_push',
      name: 'Phone',
      subscription: old,
    });
    const admin = await firstAdmin(a.store);
    if (!admin) throw new Error('no admin');
    const [created] = await listUserChannels(a.store, admin.id);
    const triedConfig = created?.config ?? '';
    observer = await openStore(database.target);
    const watching = observer;

    // A's outbox heard 410 for the old subscription it sent to: its removal holds the row.
    const paused = armPause('notify.channel_removal_locked', HOLD_BOUND_MS);
    let removing: Promise<boolean> | undefined;
    let renewing: ReturnType<typeof apiB<{ channel?: { id: string } }>> | undefined;
    try {
      removing = removeChannel(a.store, admin.id, channelId, triedConfig);
      void removing.catch(() => undefined);
      await paused.reached;
      // B's renewal queues behind it (each lock wait is bounded: the release comes at once).
      renewing = apiB<{ channel?: { id: string } }>('POST', WEB_PUSH_RENEWAL_PATH, {
        old_endpoint: old.endpoint,
        subscription: push.subscribe(settings.json.web_push_public_key),
      });
      await eventually(async () => (await lockWaiters(watching)) === 1, HOLD_BOUND_MS);
    } finally {
      paused.release();
    }

    expect(await removing).toBe(true);
    const renewed = await renewing;
    // The channel is gone: the browser must hear so, and offer to turn notifications on again.
    expect(await listUserChannels(b.store, admin.id)).toEqual([]);
    expect(renewed.status).toBe(404);
  });
});
