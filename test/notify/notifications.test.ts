/**
 * Notifications end to end, on SQLite and PostgreSQL: the whole server in
 * this process, agents asking through the clarification service and the
 * user-input registry, and real HTTP receivers standing in for a webhook
 * endpoint and an ntfy server. Short backoff and poll tunables keep it quick;
 * what is proved is the count and identity of what arrives.
 */
import { createHmac } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { silentLogger } from '../../src/observability/logger.js';
import { startServer, type RunningServer, type NotifyOptions } from '../../src/server.js';
import type { Driver } from '../../src/store/index.js';
import { ANSWERS, TWO_QUESTIONS, eventually } from '../support/clarification-harness.js';
import { FAST_NOTIFY, noticesSettled } from '../support/notify-options.js';
import {
  DRIVERS,
  freshDatabase,
  inOrder,
  IN_ORDER,
  type TestDatabase,
} from '../support/databases.js';
import { bearerApi, serverConfig, type ApiCall } from '../support/in-process-server.js';
import { startReceiver, type Receiver, type Received } from '../support/receiver.js';
import { seedAdminSession } from '../support/seed.js';

const ADMIN_TOKEN = 'notify-admin-token-0123456789abcdef';

const FAST = FAST_NOTIFY;

const ONE_QUESTION = {
  questions: [
    {
      prompt: 'Ship it today?',
      options: [
        { label: 'Yes', description: 'now' },
        { label: 'No', description: 'later' },
      ],
    },
  ],
};

interface Running {
  server: RunningServer;
  api: ApiCall;
}

async function startOn(database: TestDatabase, notify: NotifyOptions = FAST): Promise<Running> {
  const server = await startServer(serverConfig(database, ADMIN_TOKEN), silentLogger, { notify });
  return { server, api: bearerApi(server.url, ADMIN_TOKEN) };
}

function signed(secret: string, request: Received): boolean {
  const expected = `sha256=${createHmac('sha256', secret).update(request.body).digest('hex')}`;
  return request.headers['x-clarion-signature'] === expected;
}

function json(request: Received | undefined): Record<string, unknown> {
  return JSON.parse(request?.body ?? '{}') as Record<string, unknown>;
}

const events = (receiver: Receiver, event: string) =>
  receiver.received.filter((request) => json(request).event === event);

// Within one database the tests run in order: they share its `database` and `running`.
const it = inOrder;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A consent request (Allow once / Reject) in a new session of the admin's workspace. */
async function requestConsent(server: RunningServer, taskTitle: string, title: string) {
  const sessionId = await seedAdminSession(server.store, taskTitle);
  const session = await server.store.db
    .selectFrom('task_sessions')
    .select('task_id')
    .where('id', '=', sessionId)
    .executeTakeFirstOrThrow();
  const requested = server.turns.userInputs.request({
    kind: 'consent',
    sessionId,
    taskId: session.task_id,
    profile: 'demo',
    toolKey: 'shell',
    command: title,
    title,
    options: [
      { option_id: 'allow', label: 'Allow once', kind: 'allow_once' },
      { option_id: 'reject', label: 'Reject', kind: 'reject_once' },
    ],
  });
  return { sessionId, requested };
}

// The two databases at once, each with its own servers and receivers.
describe.concurrent.each(DRIVERS)('notifications on %s', (driver: Driver) => {
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

  async function receiver(respond?: Parameters<typeof startReceiver>[0]): Promise<Receiver> {
    const started = await startReceiver(respond);
    receivers.push(started);
    return started;
  }

  async function addChannel(api: ApiCall, body: Record<string, unknown>) {
    const created = await api<{ channel: { id: string }; secret?: string }>(
      'POST',
      '/api/v1/notification-channels',
      body,
    );
    expect(created.status).toBe(201);
    return created.json;
  }

  /** An agent asks in a new session of the admin's workspace; resolves with the bundle's ID. */
  async function ask(server: RunningServer, api: ApiCall, input: unknown = TWO_QUESTIONS) {
    const sessionId = await seedAdminSession(server.store, `task ${Math.random()}`);
    server.clarification.ask(sessionId, input).catch(() => undefined);
    let pendingId = '';
    await eventually(async () => {
      const page = await api<{ bundles: { pending_id: string; session_id: string }[] }>(
        'GET',
        '/api/v1/pending?limit=100',
      );
      pendingId = page.json.bundles.find((b) => b.session_id === sessionId)?.pending_id ?? '';
      return pendingId !== '';
    });
    return { sessionId, pendingId };
  }

  it('sends exactly one signed webhook per bundle, then one "answered"', async () => {
    running = await startOn(database);
    const { server, api } = running;
    const hook = await receiver();
    const { secret } = await addChannel(api, { kind: 'webhook', url: `${hook.url}/hook` });
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const { sessionId, pendingId } = await ask(server, api);
    await eventually(() => hook.received.length >= 1);
    // Nothing more owed, so nothing more to come: still one.
    await noticesSettled(server);
    expect(hook.received).toHaveLength(1);
    const [request] = hook.received;
    expect(request && signed(secret ?? '', request)).toBe(true);
    expect(request?.headers['x-clarion-event']).toBe('asked');
    expect(json(request)).toEqual({
      event: 'asked',
      kind: 'question',
      id: pendingId,
      session_id: sessionId,
      task_id: expect.any(String) as unknown,
      title: expect.stringContaining('task') as unknown,
      // The session, opened on this question: the session may wait on others.
      url: `${server.url}/sessions/${sessionId}?pending=${pendingId}`,
      created_at: expect.any(String) as unknown,
    });

    const answered = await api('POST', `/api/v1/clarification/${pendingId}/respond`, ANSWERS);
    expect(answered.status).toBe(200);
    await eventually(() => events(hook, 'answered').length === 1);
    await noticesSettled(server);
    expect(hook.received.map((r) => json(r).event)).toEqual(['asked', 'answered']);
    const ids = new Set(hook.received.map((r) => r.headers['x-clarion-delivery']));
    expect(ids.size).toBe(2);
    // Followed up: no pass reads this ask again (`idx_notification_outbox_unanswered`).
    const rows = await server.store.db
      .selectFrom('notification_outbox')
      .select('answered_at')
      .where('occurrence', '=', pendingId)
      .execute();
    expect(rows.map((row) => row.answered_at !== null)).toEqual([true, true]);
    expect(hook.received.every((r) => signed(secret ?? '', r))).toBe(true);

    const list = await api<{ channels: { last_delivery: { state: string } | null }[] }>(
      'GET',
      '/api/v1/notification-channels',
    );
    expect(list.json.channels[0]?.last_delivery?.state).toBe('delivered');
  });

  it('retries three 503s and delivers once, under one delivery ID', async () => {
    running = await startOn(database);
    const { server, api } = running;
    const hook = await receiver((_request, index) =>
      index < 3 ? { status: 503, body: 'busy' } : { status: 200 },
    );
    await addChannel(api, {
      kind: 'webhook',
      url: hook.url,
      secret: 'a-secret-of-16-chars-or-more',
    });
    const { pendingId } = await ask(server, api);
    await eventually(() => hook.received.length >= 4, 10_000);
    await noticesSettled(server);
    expect(hook.received).toHaveLength(4);
    expect(new Set(hook.received.map((r) => r.headers['x-clarion-delivery'])).size).toBe(1);
    const rows = await server.store.db
      .selectFrom('notification_outbox')
      .selectAll()
      .where('occurrence', '=', pendingId)
      .execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ attempts: 4, last_status: 200, gave_up_at: null });
    expect(rows[0]?.delivered_at).not.toBeNull();
    expect(rows[0]?.id).toBe(hook.received[0]?.headers['x-clarion-delivery']);
  });

  it('loses nothing across a restart in the middle of retrying and of a send', async () => {
    running = await startOn(database);
    const first = running;
    let accept = false;
    let slow = true;
    const hook = await receiver(() =>
      accept ? { status: 200 } : slow ? { status: 200, delayMs: 20_000 } : { status: 503 },
    );
    await addChannel(first.api, { kind: 'webhook', url: hook.url });
    const one = await ask(first.server, first.api);
    // The first notice is in flight (the receiver holds it) when the server stops.
    await eventually(() => hook.received.length === 1);
    slow = false;
    const two = await ask(first.server, first.api, ONE_QUESTION);
    await first.server.close();
    running = undefined;

    accept = true;
    running = await startOn(database);
    await eventually(
      () =>
        new Set(
          hook.received.filter((r) => json(r).event === 'asked').map((r) => json(r).id as string),
        ).size === 2,
      10_000,
    );
    const rows = await running.server.store.db
      .selectFrom('notification_outbox')
      .select(['occurrence', 'delivered_at', 'event'])
      .execute();
    expect(
      rows
        .filter((row) => row.event === 'asked')
        .map((row) => row.occurrence)
        .sort(),
    ).toEqual([one.pendingId, two.pendingId].sort());
    await eventually(async () => {
      const left = await running?.server.store.db
        .selectFrom('notification_outbox')
        .select('id')
        .where('delivered_at', 'is', null)
        .execute();
      return left?.length === 0;
    });
    // At least once, once per occurrence: repeats carry the same delivery ID.
    const perItem = new Map<string, Set<unknown>>();
    for (const request of hook.received) {
      const id = json(request).id as string;
      perItem.set(id, (perItem.get(id) ?? new Set()).add(request.headers['x-clarion-delivery']));
    }
    expect([...perItem.values()].map((ids) => ids.size)).toEqual([1, 1]);
  });

  it('reminds once after the delay, and never after an answer', async () => {
    running = await startOn(database);
    const { server, api } = running;
    const hook = await receiver();
    await addChannel(api, { kind: 'webhook', url: hook.url });
    const set = await api('PUT', '/api/v1/notification-settings', { reminder_delay_s: 2 });
    expect(set.json).toMatchObject({ settings: { reminder_delay_s: 2, include_question: false } });

    const waiting = await ask(server, api);
    const answered = await ask(server, api, ONE_QUESTION);
    await eventually(() => events(hook, 'asked').length === 2);
    const reply = await api('POST', `/api/v1/clarification/${answered.pendingId}/respond`, {
      answers: [{ question_id: 'q1', selected_options: ['q1_opt1'] }],
    });
    expect(reply.status).toBe(200);
    await eventually(() => events(hook, 'reminder').length >= 1, 10_000);
    // Past the answered bundle's own reminder time too, then nothing more owed: one reminder.
    const answeredAt = events(hook, 'asked').find((r) => json(r).id === answered.pendingId)?.at;
    await sleep(Math.max(0, (answeredAt ?? Date.now()) + 2_000 + 300 - Date.now()));
    await noticesSettled(server);
    expect(events(hook, 'reminder').map((r) => json(r).id)).toEqual([waiting.pendingId]);
    expect(events(hook, 'answered').map((r) => json(r).id)).toEqual([answered.pendingId]);
  });

  it('sends 20 notices per channel when 20 bundles are asked at once', async () => {
    running = await startOn(database);
    const { server, api } = running;
    const hook = await receiver();
    const ntfy = await receiver();
    await addChannel(api, { kind: 'webhook', url: hook.url });
    await addChannel(api, { kind: 'ntfy', url: `${ntfy.url}/clarion` });
    const sessions = await Promise.all(
      Array.from({ length: 20 }, (_, i) => seedAdminSession(server.store, `bulk ${i}`)),
    );
    for (const sessionId of sessions) {
      server.clarification.ask(sessionId, TWO_QUESTIONS).catch(() => undefined);
    }
    await eventually(() => hook.received.length >= 20 && ntfy.received.length >= 20, 15_000);
    await noticesSettled(server);
    expect(hook.received).toHaveLength(20);
    expect(ntfy.received).toHaveLength(20);
    expect(new Set(hook.received.map((r) => json(r).session_id))).toEqual(new Set(sessions));
    const clicks = ntfy.received.map((r) => String(json(r).click));
    expect(new Set(clicks.map((click) => click.split('?')[0]))).toEqual(
      new Set(sessions.map((id) => `${server.url}/sessions/${id}`)),
    );
    for (const click of clicks) expect(click).toMatch(/\?pending=[\w-]+$/);
  });

  it('lets neither respond nor another channel wait on a channel that takes 10 s', async () => {
    running = await startOn(database, {
      ...FAST,
      tunables: { ...FAST.tunables, sendTimeoutMs: 15_000, claimLeaseMs: 30_000 },
    });
    const { server, api } = running;
    const slow = await receiver(() => ({ status: 200, delayMs: 10_000 }));
    const fast = await receiver();
    await addChannel(api, { kind: 'webhook', url: slow.url });
    await addChannel(api, { kind: 'slack', url: fast.url });
    const asked = Date.now();
    const { pendingId } = await ask(server, api);
    await eventually(() => slow.received.length === 1 && fast.received.length === 1);
    // The slow receiver holds its request; the Slack one arrived regardless.
    expect((fast.received[0]?.at ?? Infinity) - asked).toBeLessThan(5_000);
    const started = performance.now();
    const reply = await api('POST', `/api/v1/clarification/${pendingId}/respond`, ANSWERS);
    const elapsed = performance.now() - started;
    expect(reply.status).toBe(200);
    expect(elapsed).toBeLessThan(2_000);
  });

  it('sends one notice for a consent request, and "answered" once it is decided', async () => {
    running = await startOn(database);
    const { server, api } = running;
    const hook = await receiver();
    await addChannel(api, { kind: 'webhook', url: hook.url });
    await api('PUT', '/api/v1/notification-settings', { include_question: true });
    const { sessionId, requested } = await requestConsent(
      server,
      'consent task',
      'Run rm -rf build/',
    );
    expect(requested.ok).toBe(true);
    if (!requested.ok) return;
    await eventually(() => hook.received.length >= 1);
    await noticesSettled(server);
    expect(hook.received).toHaveLength(1);
    expect(json(hook.received[0])).toMatchObject({
      event: 'asked',
      kind: 'consent',
      id: requested.id,
      session_id: sessionId,
      title: 'consent task',
      question: 'Run rm -rf build/',
    });
    const decided = await api('POST', `/api/v1/user-inputs/${requested.id}/respond`, {
      option_id: 'allow',
    });
    expect(decided.status).toBe(200);
    await eventually(() => events(hook, 'answered').length === 1);
    await noticesSettled(server);
    expect(hook.received).toHaveLength(2);
    // A webhook shows no answer links, so none was minted for it.
    expect(await server.store.db.selectFrom('answer_links').select('id').execute()).toEqual([]);
  });

  it('keeps no answer-link secret in the outbox: the send mints the links it carries', async () => {
    running = await startOn(database);
    const { server, api } = running;
    // The notices are held until the rows were read, so they are read while a send is in flight.
    let letGo: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      letGo = resolve;
    });
    const ntfy = await receiver(() => ({ status: 200, until: held }));
    await addChannel(api, { kind: 'ntfy', url: `${ntfy.url}/clarion-topic` });
    await api('PUT', '/api/v1/notification-settings', { include_question: true });
    const payloads = async () =>
      (await server.store.db.selectFrom('notification_outbox').select('payload').execute()).map(
        (row) => row.payload,
      );

    // A question of one choice and a consent: both can be decided with a tap.
    const { pendingId } = await ask(server, api, ONE_QUESTION);
    const { requested } = await requestConsent(server, 'linked consent', 'Run the migrations');
    if (!requested.ok) throw new Error('the consent was not requested');
    await eventually(async () => (await payloads()).length === 2 && ntfy.received.length > 0);
    for (const payload of await payloads()) expect(payload).not.toContain('cla_');
    letGo();
    await eventually(() => ntfy.received.length === 2);
    await noticesSettled(server);
    const delivered = await server.store.db
      .selectFrom('notification_outbox')
      .select('payload')
      .where('delivered_at', 'is not', null)
      .execute();
    expect(delivered).toHaveLength(2);
    for (const row of delivered) expect(row.payload).not.toContain('cla_');

    // Yes and No; Allow once and Reject once: links minted for the send, stored as hashes.
    const actions = ntfy.received.map((request) => json(request).actions as { url: string }[]);
    expect(actions.map((buttons) => buttons.length)).toEqual([2, 2]);
    for (const { url } of actions.flat()) {
      expect(url).toMatch(new RegExp(`^${server.url}/answer#cla_`));
    }
    const stored = await server.store.db.selectFrom('answer_links').select('token_hash').execute();
    expect(stored).toHaveLength(4);
    for (const [first] of actions) {
      const url = first?.url ?? '';
      const use = await fetch(`${server.url}/api/v1/answer-links/use`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token: url.slice(url.indexOf('#') + 1) }),
      });
      expect(use.status).toBe(200);
      expect(((await use.json()) as { link: { state: string } }).link.state).toBe('answered');
    }
    expect(server.turns.userInputs.get(requested.id)).toMatchObject({ status: 'settled' });
    const pending = await api<{ bundles: { pending_id: string }[] }>(
      'GET',
      '/api/v1/pending?limit=100',
    );
    expect(pending.json.bundles.map((bundle) => bundle.pending_id)).not.toContain(pendingId);
  });

  it('carries answer links on an ntfy notice for a consent, and one of them decides it', async () => {
    running = await startOn(database);
    const { server, api } = running;
    const ntfy = await receiver();
    await addChannel(api, { kind: 'ntfy', url: `${ntfy.url}/clarion-topic` });
    const { requested } = await requestConsent(server, 'linked consent', 'Run the migrations');
    if (!requested.ok) throw new Error('the consent was not requested');
    await eventually(() => ntfy.received.length >= 1);
    const actions = json(ntfy.received[0]).actions as { label: string; url: string }[];
    // Clarion's words for each kind: the agent's "Reject" is a "Reject once".
    expect(actions.map((action) => action.label)).toEqual(['Allow once', 'Reject once']);
    const allow = actions[0]?.url ?? '';
    expect(allow).toMatch(new RegExp(`^${server.url}/answer#cla_`));

    // The link's secret is its credential: no bearer token, no cookie.
    const token = allow.slice(allow.indexOf('#') + 1);
    const use = await fetch(`${server.url}/api/v1/answer-links/use`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token }),
    });
    expect(use.status).toBe(200);
    const { link } = (await use.json()) as {
      link: { state: string; decided: { choice: string; responded_by: unknown } | null };
    };
    expect(link).toMatchObject({
      state: 'answered',
      decided: { choice: 'Allow once', responded_by: { surface: 'link', name: 'admin' } },
    });
    expect(server.turns.userInputs.get(requested.id)).toMatchObject({
      status: 'settled',
      selected_option_id: 'allow',
      responded_by: { surface: 'link' },
    });
  });

  it('leaves one live set of answer links for a notice sent three times: a retry revokes the earlier ones', async () => {
    running = await startOn(database);
    const { server, api } = running;
    const ntfy = await receiver((_request, index) =>
      index < 2 ? { status: 503, body: 'busy' } : { status: 200 },
    );
    await addChannel(api, { kind: 'ntfy', url: `${ntfy.url}/clarion-topic` });
    const { requested } = await requestConsent(server, 'retried consent', 'Run the migrations');
    if (!requested.ok) throw new Error('the consent was not requested');
    await eventually(() => ntfy.received.length === 3, 10_000);
    await noticesSettled(server);

    const secrets = ntfy.received.map((request) =>
      (json(request).actions as { url: string }[]).map(({ url }) =>
        url.slice(url.indexOf('#') + 1),
      ),
    );
    expect(secrets.map((set) => set.length)).toEqual([2, 2, 2]);
    // One notice, one question: only the links of the send that arrived still lead anywhere.
    const stored = await server.store.db.selectFrom('answer_links').select('id').execute();
    expect(stored).toHaveLength(2);
    const view = async (token: string) => {
      const response = await fetch(`${server.url}/api/v1/answer-links/view`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token }),
      });
      await response.arrayBuffer();
      return response.status;
    };
    const statuses = await Promise.all(secrets.map((set) => Promise.all(set.map(view))));
    expect(statuses).toEqual([
      [404, 404],
      [404, 404],
      [200, 200],
    ]);
  });

  test.each(['turned answer links off', 'deleted the channel'])(
    'lets no link already sent decide once its person %s',
    IN_ORDER,
    async (withdrawal) => {
      running = await startOn(database);
      const { server, api } = running;
      const ntfy = await receiver();
      const { channel } = await addChannel(api, {
        kind: 'ntfy',
        url: `${ntfy.url}/clarion-topic`,
      });
      const { requested } = await requestConsent(server, 'read topic', 'Run the migrations');
      if (!requested.ok) throw new Error('the consent was not requested');
      await eventually(() => ntfy.received.length === 1);
      const [allow] = json(ntfy.received[0]).actions as { url: string }[];
      const token = allow?.url.slice(allow.url.indexOf('#') + 1);

      // The topic turned out readable by others: the person withdraws what it carried.
      const withdrawn =
        withdrawal === 'deleted the channel'
          ? await fetch(`${server.url}/api/v1/notification-channels/${channel.id}`, {
              method: 'DELETE',
              headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
            })
          : await api('PUT', '/api/v1/notification-settings', { answer_links: false });
      expect(withdrawn.status).toBeLessThan(300);
      const use = await fetch(`${server.url}/api/v1/answer-links/use`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token }),
      });
      await use.arrayBuffer();
      expect(use.status).toBe(404);
      expect(server.turns.userInputs.get(requested.id)).toMatchObject({ status: 'awaiting' });
    },
  );

  it('carries no answer link to a person who turned them off: the notice opens Clarion instead', async () => {
    running = await startOn(database);
    const { server, api } = running;
    const ntfy = await receiver();
    await addChannel(api, { kind: 'ntfy', url: `${ntfy.url}/clarion-topic` });
    const off = await api('PUT', '/api/v1/notification-settings', {
      include_question: true,
      answer_links: false,
    });
    expect(off.status).toBe(200);

    const { requested } = await requestConsent(server, 'unlinked consent', 'Run the migrations');
    if (!requested.ok) throw new Error('the consent was not requested');
    await ask(server, api, ONE_QUESTION);
    await eventually(() => ntfy.received.length === 2);
    await noticesSettled(server);
    for (const request of ntfy.received) {
      const actions = json(request).actions as { label: string; url: string }[];
      expect(actions.map((action) => action.label)).toEqual(['Open in Clarion']);
      expect(JSON.stringify(json(request))).not.toContain('/answer#');
    }
    expect(await server.store.db.selectFrom('answer_links').select('id').execute()).toEqual([]);
  });
});
