/**
 * What a notice says and where it may go, end to end on SQLite and
 * PostgreSQL with real receivers: a session that merely goes idle is no
 * item; a bundle of several questions is one notice; without "include the
 * question" no channel's body holds the question's text or its options; an
 * admin's `CLARION_NOTIFY_ALLOWED_HOSTS` refuses other targets when a channel
 * is added, tested, and when a stored one would be sent to.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/observability/logger.js';
import { startServer, type RunningServer } from '../../src/server.js';
import type { Driver } from '../../src/store/index.js';
import { eventually } from '../support/clarification-harness.js';
import { addChannel, FAST_NOTIFY, noticesSettled } from '../support/notify-options.js';
import { DRIVERS, freshDatabase, type TestDatabase } from '../support/databases.js';
import { bearerApi, serverConfig, type ApiCall } from '../support/in-process-server.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { seedAdminSession } from '../support/seed.js';

const ADMIN_TOKEN = 'notice-scope-admin-token-0123456789';

const FAST = FAST_NOTIFY;

/** Words that must not leave the server unless the person asked for them. */
const SECRET_PROMPT = 'Drop the customers table in production?';
const SECRET_OPTIONS = ['Drop it now', 'Keep the table'];
const SECRET_CONSENT = 'rm -rf /srv/backups';

const SECRET_QUESTION = {
  questions: [
    {
      prompt: SECRET_PROMPT,
      options: SECRET_OPTIONS.map((label) => ({ label, description: 'a choice' })),
    },
  ],
};

interface Running {
  server: RunningServer;
  api: ApiCall;
}

const PUBLIC_ORIGIN = 'https://clarion.example.test';

async function startOn(
  database: TestDatabase,
  allowedHosts: readonly string[] = [],
  publicOrigin?: string,
) {
  const config = serverConfig(database, ADMIN_TOKEN, {
    publicOrigin,
    notifyAllowedHosts: allowedHosts,
  });
  const server = await startServer(config, silentLogger, { notify: FAST });
  return { server, api: bearerApi(server.url, ADMIN_TOKEN) };
}

describe.each(DRIVERS)('what notices say and where they go on %s', (driver: Driver) => {
  let database: TestDatabase;
  let running: Running | undefined;
  const receivers: Receiver[] = [];

  beforeEach(async () => {
    database = await freshDatabase(driver, { migrated: true });
  });

  afterEach(async () => {
    await running?.server.close();
    running = undefined;
    await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
    await database.dispose();
  });

  async function receiver(): Promise<Receiver> {
    const started = await startReceiver();
    receivers.push(started);
    return started;
  }

  async function outboxRows(server: RunningServer) {
    return server.store.db.selectFrom('notification_outbox').selectAll().execute();
  }

  it('notifies nothing for a session that merely goes idle, and once for a bundle of three questions', async () => {
    running = await startOn(database);
    const { server, api } = running;
    const hook = await receiver();
    await addChannel(api, { kind: 'webhook', url: hook.url });

    const created = await api<{ session: { id: string } }>('POST', '/api/v1/tasks', {
      title: 'chatty task',
      prompt: 'Hello, just tell me something.',
    });
    expect(created.status).toBe(201);
    const idleId = created.json.session.id;
    // The demo agent answers a plain prompt and its session goes idle.
    await eventually(async () => {
      const session = await server.store.db
        .selectFrom('task_sessions')
        .select('state')
        .where('id', '=', idleId)
        .executeTakeFirst();
      const replied = await server.store.db
        .selectFrom('task_session_messages')
        .select('id')
        .where('task_session_id', '=', idleId)
        .where('author_type', '=', 'agent')
        .executeTakeFirst();
      return session?.state === 'idle' && replied !== undefined;
    }, 15_000);
    // A pass begun after it went idle owes nothing: nothing sent, nothing to come.
    await noticesSettled(server);
    expect(hook.received).toEqual([]);
    expect(await outboxRows(server)).toEqual([]);

    const asked = await api<{ session: { id: string } }>('POST', '/api/v1/tasks', {
      title: 'three questions',
      prompt: '/ask-multi',
    });
    expect(asked.status).toBe(201);
    await eventually(() => hook.received.length >= 1, 15_000);
    await noticesSettled(server);
    expect(hook.received).toHaveLength(1);
    expect(JSON.parse(hook.received[0]?.body ?? '{}')).toMatchObject({
      event: 'asked',
      kind: 'question',
      session_id: asked.json.session.id,
    });
  });

  it('keeps the question and its options out of every channel unless the person includes it', async () => {
    running = await startOn(database, [], PUBLIC_ORIGIN);
    const { server, api } = running;
    const hook = await receiver();
    const ntfy = await receiver();
    const slack = await receiver();
    await addChannel(api, { kind: 'webhook', url: hook.url });
    await addChannel(api, { kind: 'ntfy', url: `${ntfy.url}/topic` });
    await addChannel(api, { kind: 'slack', url: slack.url });
    const all = [hook, ntfy, slack];
    const bodies = () => all.flatMap((one) => one.received.map((request) => request.body));

    const hidden = await seedAdminSession(server.store, 'Quiet task');
    server.clarification.ask(hidden, SECRET_QUESTION).catch(() => undefined);
    const consentSession = await seedAdminSession(server.store, 'Quiet consent');
    const consentTask = await server.store.db
      .selectFrom('task_sessions')
      .select('task_id')
      .where('id', '=', consentSession)
      .executeTakeFirstOrThrow();
    const consent = server.turns.userInputs.request({
      kind: 'consent',
      sessionId: consentSession,
      taskId: consentTask.task_id,
      profile: 'demo',
      toolKey: 'shell',
      command: SECRET_CONSENT,
      title: SECRET_CONSENT,
      options: [
        { option_id: 'allow', label: 'Allow once', kind: 'allow_once' },
        { option_id: 'reject', label: 'Reject', kind: 'reject_once' },
      ],
    });
    expect(consent.ok).toBe(true);
    await eventually(() => all.every((one) => one.received.length >= 2), 10_000);
    expect(bodies().join('\n')).toContain('Quiet task');
    for (const body of bodies()) {
      for (const secret of [SECRET_PROMPT, ...SECRET_OPTIONS, SECRET_CONSENT]) {
        expect(body).not.toContain(secret);
      }
    }
    // Links lead to CLARION_PUBLIC_ORIGIN, where the person reaches Clarion.
    const hookBodies = hook.received.map((request) => JSON.parse(request.body) as { url: string });
    // The question's opens its session on it; the consent's, its session.
    expect(hookBodies.map((body) => body.url.split('?')[0]).sort()).toEqual(
      [hidden, consentSession].map((id) => `${PUBLIC_ORIGIN}/sessions/${id}`).sort(),
    );
    expect(hookBodies.map((body) => body.url.includes('?pending=')).sort()).toEqual([false, true]);
    for (const request of ntfy.received) {
      const { actions } = JSON.parse(request.body) as { actions: { url: string }[] };
      for (const action of actions) expect(action.url.startsWith(`${PUBLIC_ORIGIN}/`)).toBe(true);
    }
    // The consent still offers its one-tap choices; the question only opens Clarion.
    const ntfyActions = ntfy.received.map((request) =>
      (JSON.parse(request.body) as { actions: { label: string }[] }).actions.map(
        (action) => action.label,
      ),
    );
    expect(ntfyActions).toEqual(
      expect.arrayContaining([['Open in Clarion'], ['Allow once', 'Reject once']]),
    );

    const turnedOn = await api('PUT', '/api/v1/notification-settings', {
      include_question: true,
    });
    expect(turnedOn.status).toBe(200);
    for (const one of all) one.received.splice(0);
    const shown = await seedAdminSession(server.store, 'Open task');
    server.clarification.ask(shown, SECRET_QUESTION).catch(() => undefined);
    await eventually(() => all.every((one) => one.received.length >= 1), 10_000);
    for (const body of bodies()) expect(body).toContain(SECRET_PROMPT);
    const labels = (JSON.parse(ntfy.received[0]?.body ?? '{}') as { actions: { label: string }[] })
      .actions;
    expect(labels.map((action) => action.label)).toEqual(SECRET_OPTIONS);
  });

  it('sends only to the allowed hosts: refused when added or tested, and never sent when the list changes', async () => {
    const hook = await receiver();
    running = await startOn(database);
    const storedId = await addChannel(running.api, { kind: 'webhook', url: hook.url });
    await running.server.close();
    running = undefined;

    running = await startOn(database, ['notify.example']);
    const { server, api } = running;
    const refused = await api('POST', '/api/v1/notification-channels', {
      kind: 'ntfy',
      url: `${hook.url}/topic`,
    });
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({
      code: 'invalid_request',
      details: [{ path: 'url', code: 'host_not_allowed' }],
    });
    const listed = await api<{ channels: { id: string }[] }>(
      'GET',
      '/api/v1/notification-channels',
    );
    expect(listed.json.channels.map((channel) => channel.id)).toEqual([storedId]);
    // A subdomain of an allowed host is allowed.
    const allowed = await api('POST', '/api/v1/notification-channels', {
      kind: 'slack',
      url: 'https://hooks.notify.example/services/x',
    });
    expect(allowed.status).toBe(201);

    const tested = await api('POST', `/api/v1/notification-channels/${storedId}/test`);
    expect(tested.json).toMatchObject({ delivered: false, status: null });
    expect(String(tested.json.error)).toContain('CLARION_NOTIFY_ALLOWED_HOSTS');
    expect(tested.json).toMatchObject({ error_code: 'host_not_allowed' });

    const sessionId = await seedAdminSession(server.store, 'restricted');
    server.clarification.ask(sessionId, SECRET_QUESTION).catch(() => undefined);
    await eventually(async () => {
      const rows = await outboxRows(server);
      return rows.some((row) => row.channel_id === storedId && row.gave_up_at !== null);
    }, 10_000);
    const [row] = (await outboxRows(server)).filter((one) => one.channel_id === storedId);
    expect(row).toMatchObject({ delivered_at: null });
    expect(row?.last_error).toContain('CLARION_NOTIFY_ALLOWED_HOSTS');
    expect(row?.last_error_code).toBe('host_not_allowed');
    expect(hook.received).toEqual([]);
  });
});
