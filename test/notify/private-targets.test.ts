/**
 * A person who is not an admin cannot aim a channel at the server's own
 * machine or its LAN, end to end on SQLite and PostgreSQL with a real
 * receiver on loopback: adding one is a 400 `internal_target` (a name that
 * resolves to 127.0.0.1 too, and a Web Push endpoint); one stored while the
 * admin allowed it is refused when tested and never sent once the admin
 * takes that back. An admin's own channels, and anyone's while
 * `CLARION_NOTIFY_ALLOWED_HOSTS` names the host, reach it as before.
 */
import { createECDH, randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { INTERNAL_TARGET_REFUSED } from '../../src/notify/guarded-post.js';
import { silentLogger } from '../../src/observability/logger.js';
import { startServer, type RunningServer } from '../../src/server.js';
import type { Driver } from '../../src/store/index.js';
import { eventually } from '../support/clarification-harness.js';
import { DRIVERS, freshDatabase, type TestDatabase } from '../support/databases.js';
import { bearerApi, serverConfig, type ApiCall } from '../support/in-process-server.js';
import { addChannel, FAST_NOTIFY } from '../support/notify-options.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { wireCheckedApi } from '../support/wire-checked-api.js';
import { seedAdminSession } from '../support/seed.js';

const ADMIN_TOKEN = 'private-targets-admin-token-0123456';

const PUSH_KEYS = {
  p256dh: createECDH('prime256v1').generateKeys().toString('base64url'),
  auth: randomBytes(16).toString('base64url'),
};

const QUESTION = {
  questions: [
    {
      prompt: 'Deploy?',
      options: [
        { label: 'Yes', description: 'ship it' },
        { label: 'No', description: 'wait' },
      ],
    },
  ],
};

describe.each(DRIVERS)('channels at private addresses on %s', (driver: Driver) => {
  let database: TestDatabase;
  let server: RunningServer | undefined;
  let hook: Receiver;

  beforeEach(async () => {
    database = await freshDatabase(driver, { migrated: true });
    hook = await startReceiver();
  });

  afterEach(async () => {
    await server?.close();
    server = undefined;
    await hook.close();
    await database.dispose();
  });

  async function start(allowedHosts: readonly string[] = []) {
    server = await startServer(
      serverConfig(database, ADMIN_TOKEN, { notifyAllowedHosts: allowedHosts }),
      silentLogger,
      { notify: FAST_NOTIFY },
    );
    return { running: server, admin: bearerApi(server.url, ADMIN_TOKEN) };
  }

  /** Bea, who is not an admin, as a member of the admin's workspace (so she is told of its questions). */
  async function bea(running: RunningServer, admin: ApiCall, sessionId?: string) {
    const created = await admin<{ user: { id: string }; token: string }>('POST', '/api/v1/users', {
      name: 'Bea',
    });
    expect(created.status).toBe(201);
    if (sessionId !== undefined) {
      const { workspace_id: workspaceId } = await running.store.db
        .selectFrom('task_sessions as s')
        .innerJoin('tasks as t', 't.id', 's.task_id')
        .select('t.workspace_id')
        .where('s.id', '=', sessionId)
        .executeTakeFirstOrThrow();
      const added = await admin('POST', `/api/v1/workspaces/${workspaceId}/members`, {
        user_id: created.json.user.id,
        role: 'member',
      });
      expect(added.status).toBe(201);
    }
    return {
      token: created.json.token,
      api: wireCheckedApi(bearerApi(running.url, created.json.token)),
    };
  }

  const port = () => new URL(hook.url).port;

  it('refuses a person’s loopback target, named or resolved, with a 400 and stores nothing', async () => {
    const { running, admin } = await start();
    const person = await bea(running, admin);
    const cases: [Record<string, unknown>, string][] = [
      [{ kind: 'webhook', url: `${hook.url}/admin/secrets` }, 'url'],
      [{ kind: 'ntfy', url: `http://localhost:${port()}/topic` }, 'url'],
      [{ kind: 'slack', url: `http://[::1]:${port()}/relay` }, 'url'],
      [{ kind: 'webhook', url: 'http://10.0.0.5/hook' }, 'url'],
      [{ kind: 'webhook', url: 'http://169.254.169.254/latest/meta-data' }, 'url'],
      [{ kind: 'webhook', url: `http://[::ffff:127.0.0.1]:${port()}/x` }, 'url'],
      [
        {
          kind: 'web_push',
          subscription: { endpoint: `${hook.url}/push/x`, keys: PUSH_KEYS },
        },
        'subscription.endpoint',
      ],
    ];
    for (const [body, path] of cases) {
      const refused = await person.api<{ code: string; details: { path: string }[] }>(
        'POST',
        '/api/v1/notification-channels',
        body,
      );
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.json.code).toBe('internal_target');
      expect(refused.json.details).toEqual([expect.objectContaining({ path })]);
    }
    const listed = await person.api<{ channels: unknown[] }>(
      'GET',
      '/api/v1/notification-channels',
    );
    expect(listed.json.channels).toEqual([]);
    expect(hook.received).toEqual([]);

    // The admin's own channel reaches it as before.
    const own = await addChannel(admin, { kind: 'webhook', url: `http://localhost:${port()}/x` });
    const tested = await admin('POST', `/api/v1/notification-channels/${own}/test`);
    expect(tested.json).toEqual({
      delivered: true,
      status: 200,
      error: null,
      error_code: null,
    });
    expect(hook.received).toHaveLength(1);
  });

  it('lets a person reach a host the admin listed in CLARION_NOTIFY_ALLOWED_HOSTS', async () => {
    const { running, admin } = await start(['localhost']);
    const person = await bea(running, admin);
    const id = await addChannel(person.api, {
      kind: 'webhook',
      url: `http://localhost:${port()}/hook`,
    });
    const tested = await person.api('POST', `/api/v1/notification-channels/${id}/test`);
    expect(tested.json).toEqual({
      delivered: true,
      status: 200,
      error: null,
      error_code: null,
    });
    expect(hook.received).toHaveLength(1);
  });

  it('refuses at send time a stored channel the admin no longer allows: tested and owed alike', async () => {
    const first = await start(['localhost']);
    const sessionId = await seedAdminSession(first.running.store, 'private targets');
    const person = await bea(first.running, first.admin, sessionId);
    // A name, not an address: only its resolution at send time says where it goes.
    const stored = await addChannel(person.api, {
      kind: 'webhook',
      url: `http://localhost:${port()}/hook`,
    });
    await first.running.close();
    server = undefined;

    const { running, admin } = await start();
    const again = bearerApi(running.url, person.token);
    const tested = await again('POST', `/api/v1/notification-channels/${stored}/test`);
    expect(tested.json).toEqual({
      delivered: false,
      status: null,
      error: INTERNAL_TARGET_REFUSED,
      error_code: 'internal_target',
    });

    // The admin's channel at the same receiver is still told; Bea's row gives up unsent.
    const own = await addChannel(admin, { kind: 'webhook', url: `${hook.url}/admin` });
    running.clarification.ask(sessionId, QUESTION).catch(() => undefined);
    await eventually(async () => {
      const rows = await running.store.db.selectFrom('notification_outbox').selectAll().execute();
      return (
        rows.some((row) => row.channel_id === stored && row.gave_up_at !== null) &&
        rows.some((row) => row.channel_id === own && row.delivered_at !== null)
      );
    }, 15_000);
    const row = await running.store.db
      .selectFrom('notification_outbox')
      .selectAll()
      .where('channel_id', '=', stored)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      delivered_at: null,
      last_error: INTERNAL_TARGET_REFUSED,
      last_error_code: 'internal_target',
    });
    // The page words the code in its person's language; the English stays for API users.
    const listed = await again<{ channels: { id: string; last_delivery: unknown }[] }>(
      'GET',
      '/api/v1/notification-channels',
    );
    expect(listed.json.channels.find((each) => each.id === stored)?.last_delivery).toMatchObject({
      state: 'failed',
      error: INTERNAL_TARGET_REFUSED,
      error_code: 'internal_target',
      status: null,
    });
    expect(hook.received.map((request) => request.path)).toEqual(['/admin']);
  });
});
