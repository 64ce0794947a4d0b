/**
 * A notice retried for a failing channel is checked again before each
 * attempt, end to end on SQLite and PostgreSQL with a real receiver: a
 * person removed from the item's workspace while their channel fails hears
 * nothing more once it recovers (the row is given up), and a person who
 * turns "include the question" off while their channel fails gets the
 * notice without the question's text or its options, and a person who
 * turns reminders off ("Never"), or sets a longer delay, while their channel
 * fails gets no reminder already queued for it (not before the new delay).
 *
 * Each test waits for an attempt claimed after the change before the
 * receiver recovers, so an attempt already on its way when the change was
 * made cannot be the one that arrives.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NO_LONGER_VISIBLE } from '../../src/notify/recheck.js';
import { silentLogger } from '../../src/observability/logger.js';
import { startServer, type RunningServer } from '../../src/server.js';
import type { Driver } from '../../src/store/index.js';
import { eventually } from '../support/clarification-harness.js';
import { DRIVERS, freshDatabase, type TestDatabase } from '../support/databases.js';
import { bearerApi, serverConfig, type ApiCall } from '../support/in-process-server.js';
import { addChannel, FAST_NOTIFY } from '../support/notify-options.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { seedAdminSession } from '../support/seed.js';

const ADMIN_TOKEN = 'recheck-before-send-admin-token-0123';
const PUBLIC_ORIGIN = 'https://clarion.example.test';

const SECRET_PROMPT = 'Drop the customers table in production?';
const SECRET_OPTIONS = ['Drop it now', 'Keep the table'];
const SECRET_QUESTION = {
  questions: [
    {
      prompt: SECRET_PROMPT,
      options: SECRET_OPTIONS.map((label) => ({ label, description: 'a choice' })),
    },
  ],
};

/** Generous: a loaded machine, and PostgreSQL, are slower than the fast tunables. */
const WAIT_MS = 20_000;

const FAILING = { status: 503, body: 'busy' } as const;
const OK = { status: 200 } as const;

function startOn(database: TestDatabase): Promise<RunningServer> {
  // Bea is no admin: her loopback receiver is hers to reach only as the admin allows.
  const config = serverConfig(database, ADMIN_TOKEN, {
    publicOrigin: PUBLIC_ORIGIN,
    notifyAllowedHosts: ['127.0.0.1'],
  });
  return startServer(config, silentLogger, { notify: FAST_NOTIFY });
}

describe.each(DRIVERS)(
  'a retried notice is checked again before each attempt on %s',
  (driver: Driver) => {
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

    async function failingReceiver(): Promise<Receiver> {
      const started = await startReceiver(() => FAILING);
      receivers.push(started);
      return started;
    }

    /** A receiver that took the question's `asked`, then went down: each reminder fails. */
    async function downAfterAsked(): Promise<Receiver> {
      const started = await startReceiver((request) =>
        (JSON.parse(request.body) as { event: string }).event === 'reminder' ? FAILING : OK,
      );
      receivers.push(started);
      return started;
    }

    async function includeQuestion(api: ApiCall, include: boolean): Promise<void> {
      const put = await api('PUT', '/api/v1/notification-settings', { include_question: include });
      expect(put.status).toBe(200);
    }

    async function askedRow(running: RunningServer, channelId: string, event = 'asked') {
      return running.store.db
        .selectFrom('notification_outbox')
        .selectAll()
        .where('channel_id', '=', channelId)
        .where('event', '=', event)
        .executeTakeFirst();
    }

    /** Resolves once the row has been claimed after this call (or was given up meanwhile). */
    async function claimedAgain(
      running: RunningServer,
      channelId: string,
      event = 'asked',
    ): Promise<void> {
      const before = (await askedRow(running, channelId, event))?.attempts ?? 0;
      await eventually(async () => {
        const row = await askedRow(running, channelId, event);
        return row !== undefined && (row.attempts > before || row.gave_up_at !== null);
      }, WAIT_MS);
    }

    it('sends nothing more to a person removed from the workspace while their channel retries', async () => {
      server = await startOn(database);
      const running = server;
      const admin = bearerApi(running.url, ADMIN_TOKEN);
      const sessionId = await seedAdminSession(running.store, 'Quiet migration');
      const { workspace_id: workspaceId } = await running.store.db
        .selectFrom('task_sessions as s')
        .innerJoin('tasks as t', 't.id', 's.task_id')
        .select('t.workspace_id')
        .where('s.id', '=', sessionId)
        .executeTakeFirstOrThrow();

      const created = await admin<{ user: { id: string }; token: string }>(
        'POST',
        '/api/v1/users',
        { name: 'Bea' },
      );
      expect(created.status).toBe(201);
      const beaId = created.json.user.id;
      const added = await admin('POST', `/api/v1/workspaces/${workspaceId}/members`, {
        user_id: beaId,
        role: 'member',
      });
      expect(added.status).toBe(201);
      // Someone who still sees the item has a channel too, so the item stays waiting for
      // notices and the reconciler has no reason of its own to drop Bea's.
      const adminHook = await startReceiver();
      receivers.push(adminHook);
      await addChannel(admin, { kind: 'webhook', url: adminHook.url });
      const bea = bearerApi(running.url, created.json.token);
      await includeQuestion(bea, true);
      const hook = await failingReceiver();
      const channelId = await addChannel(bea, { kind: 'webhook', url: hook.url });

      running.clarification.ask(sessionId, SECRET_QUESTION).catch(() => undefined);
      // Retrying, and what it retries carries the question.
      await eventually(() => hook.received.length >= 2, WAIT_MS);
      expect(hook.received[0]?.body).toContain(SECRET_PROMPT);

      const removed = await fetch(
        `${running.url}/api/v1/workspaces/${workspaceId}/members/${beaId}`,
        {
          method: 'DELETE',
          headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        },
      );
      await removed.arrayBuffer();
      expect(removed.status).toBe(204);
      await claimedAgain(running, channelId);

      hook.respond = () => OK;
      const heard = hook.received.length;
      await eventually(async () => {
        const row = await askedRow(running, channelId);
        return row?.gave_up_at != null || row?.delivered_at != null;
      }, WAIT_MS);
      expect(hook.received).toHaveLength(heard);
      expect(await askedRow(running, channelId)).toMatchObject({
        delivered_at: null,
        last_error: NO_LONGER_VISIBLE,
        last_status: null,
      });
      // The item still waits, and its other member was told: only Bea's notice stopped.
      const pending = await admin<{ bundles: { session_id: string }[] }>(
        'GET',
        '/api/v1/pending?limit=100',
      );
      expect(pending.json.bundles.map((bundle) => bundle.session_id)).toContain(sessionId);
      expect(adminHook.received).toHaveLength(1);
    });

    it('sends a retried notice without the question once its person turns "include the question" off', async () => {
      server = await startOn(database);
      const running = server;
      const admin = bearerApi(running.url, ADMIN_TOKEN);
      await includeQuestion(admin, true);
      const ntfy = await failingReceiver();
      const channelId = await addChannel(admin, { kind: 'ntfy', url: `${ntfy.url}/topic` });

      const sessionId = await seedAdminSession(running.store, 'Open migration');
      running.clarification.ask(sessionId, SECRET_QUESTION).catch(() => undefined);
      await eventually(() => ntfy.received.length >= 2, WAIT_MS);
      // What is retried carries the question and its options as the answer links' labels.
      const first = ntfy.received[0]?.body ?? '';
      for (const secret of [SECRET_PROMPT, ...SECRET_OPTIONS]) expect(first).toContain(secret);

      await includeQuestion(admin, false);
      await claimedAgain(running, channelId);

      ntfy.respond = () => OK;
      const heard = ntfy.received.length;
      await eventually(
        async () => (await askedRow(running, channelId))?.delivered_at != null,
        WAIT_MS,
      );
      const arrived = ntfy.received.slice(heard);
      expect(arrived).toHaveLength(1);
      const body = arrived[0]?.body ?? '';
      for (const secret of [SECRET_PROMPT, ...SECRET_OPTIONS]) expect(body).not.toContain(secret);
      const { actions } = JSON.parse(body) as { actions: { label: string; url: string }[] };
      expect(actions).toEqual([
        expect.objectContaining({
          label: 'Open in Clarion',
          // The session, opened on the question the notice is about.
          url: expect.stringMatching(
            new RegExp(`^${PUBLIC_ORIGIN}/sessions/${sessionId}\\?pending=[\\w-]+$`),
          ) as unknown,
        }),
      ]);
      // The stored payload is as planned; only what is sent follows the setting.
      expect((await askedRow(running, channelId))?.payload).toContain(SECRET_PROMPT);
    });

    it('sends no queued reminder once its person turns reminders off while their channel retries', async () => {
      server = await startOn(database);
      const running = server;
      const admin = bearerApi(running.url, ADMIN_TOKEN);
      const set = await admin('PUT', '/api/v1/notification-settings', { reminder_delay_s: 1 });
      expect(set.status).toBe(200);
      const hook = await downAfterAsked();
      const channelId = await addChannel(admin, { kind: 'webhook', url: hook.url });

      const sessionId = await seedAdminSession(running.store, 'Slow review');
      running.clarification.ask(sessionId, SECRET_QUESTION).catch(() => undefined);
      // The question was asked, and waited past the delay: its reminder is queued and failing.
      await eventually(
        async () => ((await askedRow(running, channelId, 'reminder'))?.attempts ?? 0) >= 1,
        WAIT_MS,
      );

      const never = await admin('PUT', '/api/v1/notification-settings', { reminder_delay_s: 0 });
      expect(never.status).toBe(200);
      await claimedAgain(running, channelId, 'reminder');

      hook.respond = () => OK;
      const heard = hook.received.length;
      await eventually(async () => {
        const row = await askedRow(running, channelId, 'reminder');
        return row?.gave_up_at != null || row?.delivered_at != null;
      }, WAIT_MS);
      // The receiver, recovered, hears no reminder of it.
      const arrived = hook.received
        .slice(heard)
        .map((request) => (JSON.parse(request.body) as { event: string }).event);
      expect(arrived).not.toContain('reminder');
      expect(await askedRow(running, channelId, 'reminder')).toMatchObject({
        delivered_at: null,
        last_error_code: 'reminders_off',
        last_status: null,
      });
    });
    it('holds a queued reminder back once its person sets a longer delay while their channel retries', async () => {
      server = await startOn(database);
      const running = server;
      const admin = bearerApi(running.url, ADMIN_TOKEN);
      const set = await admin('PUT', '/api/v1/notification-settings', { reminder_delay_s: 1 });
      expect(set.status).toBe(200);
      const hook = await downAfterAsked();
      const channelId = await addChannel(admin, { kind: 'webhook', url: hook.url });

      const sessionId = await seedAdminSession(running.store, 'Slower review');
      running.clarification.ask(sessionId, SECRET_QUESTION).catch(() => undefined);
      // The question was asked, and waited past the delay: its reminder is queued and failing.
      await eventually(
        async () => ((await askedRow(running, channelId, 'reminder'))?.attempts ?? 0) >= 1,
        WAIT_MS,
      );

      const later = await admin('PUT', '/api/v1/notification-settings', {
        reminder_delay_s: 3600,
      });
      expect(later.status).toBe(200);
      await claimedAgain(running, channelId, 'reminder');

      hook.respond = () => OK;
      const heard = hook.received.length;
      await eventually(async () => {
        const row = await askedRow(running, channelId, 'reminder');
        return row?.gave_up_at != null || row?.delivered_at != null;
      }, WAIT_MS);
      // The receiver, recovered, hears no reminder of it.
      const arrived = hook.received
        .slice(heard)
        .map((request) => (JSON.parse(request.body) as { event: string }).event);
      expect(arrived).not.toContain('reminder');
      expect(await askedRow(running, channelId, 'reminder')).toMatchObject({
        delivered_at: null,
        last_error_code: 'reminder_later',
        last_status: null,
      });
    });
  },
);
