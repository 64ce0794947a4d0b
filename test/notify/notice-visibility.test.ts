/**
 * Notices of a member who leaves the item's workspace and comes back, end to
 * end on SQLite and PostgreSQL with real receivers. When the only member
 * with a channel leaves while a question waits, what they were still owed
 * is given up as out of their sight (the item did not stop waiting) and no
 * channel is told it was answered. Added back while it still waits, they
 * are told of it again, once, as they would be told now; a notice given up
 * because its channel kept failing stays given up.
 *
 * The failing receivers set the pace with `Retry-After`, not the clock: one
 * is retried only after two minutes, so it is still owed when its person
 * leaves; the other's second failure asks for a retry past the give-up
 * window, so it is given up for failure at once.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NO_LONGER_VISIBLE } from '../../src/notify/recheck.js';
import { silentLogger } from '../../src/observability/logger.js';
import { startServer, type RunningServer } from '../../src/server.js';
import type { Driver } from '../../src/store/index.js';
import { eventually } from '../support/clarification-harness.js';
import { DRIVERS, freshDatabase, type TestDatabase } from '../support/databases.js';
import { bearerApi, serverConfig, type ApiCall } from '../support/in-process-server.js';
import { addChannel, FAST_NOTIFY, noticesSettled } from '../support/notify-options.js';
import { startReceiver, type Receiver, type Reply } from '../support/receiver.js';
import { seedAdminSession } from '../support/seed.js';

const ADMIN_TOKEN = 'notice-visibility-admin-token-01234';
const LOOPBACK_ALLOWED = { notifyAllowedHosts: ['127.0.0.1'] };

const PROMPT = 'Rename the billing service?';
const QUESTION = {
  questions: [
    {
      prompt: PROMPT,
      options: ['Rename it', 'Keep the name'].map((label) => ({ label, description: 'a choice' })),
    },
  ],
};

/** Generous: a loaded machine, and PostgreSQL, are slower than the fast tunables. */
const WAIT_MS = 20_000;

/** A retry waits for `Retry-After` up to 10 minutes; a notice is given up 5 minutes after its first try. */
const NOTIFY = {
  ...FAST_NOTIFY,
  tunables: { ...FAST_NOTIFY.tunables, retryMaxMs: 600_000, giveUpAfterMs: 300_000 },
};
const OK: Reply = { status: 200 };
/** Retried in two minutes: well inside the give-up window, well outside any test. */
const RETRY_IN_TWO_MINUTES: Reply = { status: 503, headers: { 'retry-after': '120' } };
/** Asks for a retry past the give-up window: the notice is given up for failure. */
const RETRY_IN_AN_HOUR: Reply = { status: 503, headers: { 'retry-after': '3600' } };

describe.each(DRIVERS)('notices of a member who leaves and comes back on %s', (driver: Driver) => {
  let database: TestDatabase;
  let server: RunningServer | undefined;
  const receivers: Receiver[] = [];

  beforeEach(async () => {
    database = await freshDatabase(driver, { migrated: true });
  });

  afterEach(async () => {
    await server?.close();
    server = undefined;
    await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
    await database.dispose();
  });

  async function receiver(respond: Receiver['respond']): Promise<Receiver> {
    const started = await startReceiver(respond);
    receivers.push(started);
    return started;
  }

  interface Scene {
    readonly running: RunningServer;
    readonly admin: ApiCall;
    readonly bea: ApiCall;
    readonly sessionId: string;
    /** Bea joins the session's workspace (again). */
    readonly join: () => Promise<void>;
    /** Bea is removed from the session's workspace. */
    readonly leave: () => Promise<void>;
  }

  /** A session of the admin's workspace with Bea, who has no channel yet, as a member. */
  async function scene(): Promise<Scene> {
    // Bea is no admin: her loopback receivers are hers to reach only as the admin allows.
    server = await startServer(
      serverConfig(database, ADMIN_TOKEN, LOOPBACK_ALLOWED),
      silentLogger,
      {
        notify: NOTIFY,
      },
    );
    const running = server;
    const admin = bearerApi(running.url, ADMIN_TOKEN);
    const sessionId = await seedAdminSession(running.store, 'Billing cleanup');
    const { workspace_id: workspaceId } = await running.store.db
      .selectFrom('task_sessions as s')
      .innerJoin('tasks as t', 't.id', 's.task_id')
      .select('t.workspace_id')
      .where('s.id', '=', sessionId)
      .executeTakeFirstOrThrow();
    const created = await admin<{ user: { id: string }; token: string }>('POST', '/api/v1/users', {
      name: 'Bea',
    });
    expect(created.status).toBe(201);
    const beaId = created.json.user.id;
    const members = `/api/v1/workspaces/${workspaceId}/members`;
    const join = async () => {
      const added = await admin('POST', members, { user_id: beaId, role: 'member' });
      expect(added.status).toBe(201);
    };
    const leave = async () => {
      const removed = await fetch(`${running.url}${members}/${beaId}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      await removed.arrayBuffer();
      expect(removed.status).toBe(204);
    };
    await join();
    const bea = bearerApi(running.url, created.json.token);
    return { running, admin, bea, sessionId, join, leave };
  }

  function rowOf(running: RunningServer, channelId: string, event = 'asked') {
    return running.store.db
      .selectFrom('notification_outbox')
      .selectAll()
      .where('channel_id', '=', channelId)
      .where('event', '=', event)
      .executeTakeFirst();
  }

  /** Resolves once `channelId`'s `asked` has failed once and waits for its retry. */
  async function retrying(running: RunningServer, channelId: string): Promise<void> {
    await eventually(async () => {
      const row = await rowOf(running, channelId);
      return row !== undefined && row.last_error !== null && row.gave_up_at === null;
    }, WAIT_MS);
  }

  async function stillPending(admin: ApiCall, sessionId: string): Promise<void> {
    const pending = await admin<{ bundles: { session_id: string }[] }>(
      'GET',
      '/api/v1/pending?limit=100',
    );
    expect(pending.json.bundles.map((bundle) => bundle.session_id)).toContain(sessionId);
  }

  it('gives up what the only member with a channel was owed as out of their sight, and says nothing was answered', async () => {
    const { running, admin, bea, sessionId, leave } = await scene();
    const told = await receiver(() => OK);
    const stuck = await receiver(() => RETRY_IN_TWO_MINUTES);
    const toldId = await addChannel(bea, { kind: 'webhook', url: told.url });
    const stuckId = await addChannel(bea, { kind: 'webhook', url: stuck.url });

    running.clarification.ask(sessionId, QUESTION).catch(() => undefined);
    await eventually(async () => (await rowOf(running, toldId))?.delivered_at != null, WAIT_MS);
    await retrying(running, stuckId);

    await leave();
    await eventually(async () => (await rowOf(running, stuckId))?.gave_up_at != null, WAIT_MS);
    expect(await rowOf(running, stuckId)).toMatchObject({
      delivered_at: null,
      gave_up_reason: 'not_visible',
      last_error: NO_LONGER_VISIBLE,
    });

    // Owed nothing more (a reconcile pass adds nothing, every notice is sent or given up):
    // what was received is final.
    await noticesSettled(running);
    await stillPending(admin, sessionId);
    const answered = await running.store.db
      .selectFrom('notification_outbox')
      .select('channel_id')
      .where('event', '=', 'answered')
      .execute();
    expect(answered).toEqual([]);
    expect(told.received.map((request) => JSON.parse(request.body) as unknown)).toEqual([
      expect.objectContaining({ event: 'asked', session_id: sessionId }),
    ]);
  });

  it('tells a member added back while the question waits once more, and leaves a notice given up for failure alone', async () => {
    const { running, admin, bea, sessionId, join, leave } = await scene();
    const returns = await receiver(() => RETRY_IN_TWO_MINUTES);
    const broken = await receiver((_request, index) =>
      index === 0 ? { status: 503 } : RETRY_IN_AN_HOUR,
    );
    const returnsId = await addChannel(bea, { kind: 'webhook', url: returns.url });
    const brokenId = await addChannel(bea, { kind: 'webhook', url: broken.url });

    running.clarification.ask(sessionId, QUESTION).catch(() => undefined);
    await eventually(async () => (await rowOf(running, brokenId))?.gave_up_at != null, WAIT_MS);
    const failed = await rowOf(running, brokenId);
    expect(failed?.last_error).toContain('given up after 2 attempts');
    expect(failed?.gave_up_reason).toBe('failed');
    await retrying(running, returnsId);
    expect(returns.received[0]?.body).not.toContain(PROMPT);

    await leave();
    await eventually(async () => (await rowOf(running, returnsId))?.gave_up_at != null, WAIT_MS);
    expect(await rowOf(running, returnsId)).toMatchObject({
      gave_up_reason: 'not_visible',
      last_error: NO_LONGER_VISIBLE,
    });
    // Changed while out of the workspace: the notice told again is built as of now.
    const put = await bea('PUT', '/api/v1/notification-settings', { include_question: true });
    expect(put.status).toBe(200);
    returns.respond = () => OK;
    const heard = returns.received.length;
    const brokenHeard = broken.received.length;

    await join();
    await eventually(async () => (await rowOf(running, returnsId))?.delivered_at != null, WAIT_MS);
    // Owed nothing more (a reconcile pass adds nothing, every notice is sent or given up):
    // what was received is final.
    await noticesSettled(running);
    await stillPending(admin, sessionId);
    const arrived = returns.received.slice(heard);
    expect(arrived).toHaveLength(1);
    expect(JSON.parse(arrived[0]?.body ?? '{}')).toMatchObject({
      event: 'asked',
      session_id: sessionId,
    });
    expect(arrived[0]?.body).toContain(PROMPT);
    expect(broken.received).toHaveLength(brokenHeard);
    expect(await rowOf(running, brokenId)).toMatchObject({
      delivered_at: null,
      gave_up_at: failed?.gave_up_at,
      gave_up_reason: 'failed',
      last_error: failed?.last_error,
    });
  });
});
