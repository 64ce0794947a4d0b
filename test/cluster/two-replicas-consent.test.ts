/**
 * A consent across two real `clarion serve` processes on one real PostgreSQL
 * (issue 16): the demo agent asks permission on A; a person whose requests
 * land on B lists it there and answers it over B's REST; the agent on A gets
 * that option, and a second answer on either replica is 409. A webhook hears
 * of the consent once, and of its answer once: the replica that does not hold
 * it never takes it for answered while it waits.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../support/clarification-harness.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { replicaProcesses } from '../support/replicas.js';
import { clarionApi } from '../agents/supervisor-support.js';

const ADMIN_TOKEN = 'two-replicas-consent-token-0123456789';

interface RequestView {
  id: string;
  kind: string;
  session_id: string;
  status: string;
}

describe('a consent across two replicas', () => {
  const processes = replicaProcesses(ADMIN_TOKEN);

  const receivers: Receiver[] = [];

  afterEach(async () => {
    await processes.stopAll();
    await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
  });

  it('raised by the agent on A is listed and answered on B; the agent on A gets the answer', async () => {
    const [a, b] = await processes.start(['replica-a', 'replica-b']);
    if (!a || !b) throw new Error('two replicas expected');
    const onA = clarionApi(a.url, ADMIN_TOKEN);
    const onB = clarionApi(b.url, ADMIN_TOKEN);

    const created = await onA('POST', '/api/v1/tasks', { title: 'asks', prompt: '/permission' });
    expect(created.status).toBe(201);
    const session = (created.json as { session: { id: string } }).session;

    const requestsOn = async (api: typeof onA) =>
      ((await api('GET', '/api/v1/user-inputs')).json.requests as RequestView[]).filter(
        (request) => request.session_id === session.id,
      );
    await eventually(async () => (await requestsOn(onB)).length === 1, 30_000);
    const [consent] = await requestsOn(onB);
    expect(consent).toMatchObject({ kind: 'consent', status: 'awaiting' });
    const id = consent?.id ?? '';
    // A, where the agent runs, lists the same request.
    expect((await requestsOn(onA)).map((request) => request.id)).toEqual([id]);

    const answered = await onB('POST', `/api/v1/user-inputs/${id}/respond`, {
      option_id: 'allow-once',
    });
    expect(answered).toMatchObject({
      status: 200,
      json: { request: { id, status: 'settled', responded_by: { surface: 'rest' } } },
    });

    const transcript = async () =>
      (
        (await onA('GET', `/api/v1/sessions/${session.id}/messages?limit=500`)).json.messages as {
          content: string;
        }[]
      ).map((message) => message.content);
    await eventually(
      async () => (await transcript()).some((text) => text.includes('"allow-once"')),
      30_000,
    );

    for (const api of [onB, onA]) {
      expect(
        await api('POST', `/api/v1/user-inputs/${id}/respond`, { option_id: 'reject-once' }),
      ).toMatchObject({ status: 409, json: { code: 'conflict' } });
    }
    expect(await requestsOn(onB)).toEqual([]);
    expect(
      await onB('POST', '/api/v1/user-inputs/no-such-request/respond', { option_id: 'allow-once' }),
    ).toMatchObject({ status: 404 });
  });

  it('a webhook hears of a consent held by A once, and of its answer once', async () => {
    const [a, b] = await processes.start(['replica-a', 'replica-b'], {
      CLARION_NOTIFY_ALLOWED_HOSTS: '127.0.0.1',
    });
    if (!a || !b) throw new Error('two replicas expected');
    const onA = clarionApi(a.url, ADMIN_TOKEN);
    const onB = clarionApi(b.url, ADMIN_TOKEN);
    const hook = await startReceiver();
    receivers.push(hook);
    expect(
      await onB('POST', '/api/v1/notification-channels', { kind: 'webhook', url: hook.url }),
    ).toMatchObject({ status: 201 });
    const noticesOf = (id: string) =>
      hook.received
        .map((request) => JSON.parse(request.body) as { event: string; id: string })
        .filter((notice) => notice.id === id)
        .map((notice) => notice.event);

    const created = await onA('POST', '/api/v1/tasks', { title: 'asks', prompt: '/permission' });
    expect(created.status).toBe(201);
    const session = (created.json as { session: { id: string } }).session;
    let id = '';
    await eventually(async () => {
      const listed = (await onA('GET', '/api/v1/user-inputs')).json.requests as RequestView[];
      id = listed.find((request) => request.session_id === session.id)?.id ?? '';
      return id !== '';
    }, 30_000);
    await eventually(() => Promise.resolve(noticesOf(id).includes('asked')), 20_000);
    // Every event B hears makes it reconcile: another session's, once the ask went out.
    expect(await onA('POST', '/api/v1/tasks', { title: 'chats', prompt: 'hello' })).toMatchObject({
      status: 201,
    });
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(noticesOf(id)).toEqual(['asked']);

    expect(
      await onB('POST', `/api/v1/user-inputs/${id}/respond`, { option_id: 'allow-once' }),
    ).toMatchObject({ status: 200 });
    await eventually(() => Promise.resolve(noticesOf(id).includes('answered')), 20_000);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(noticesOf(id)).toEqual(['asked', 'answered']);
  });
});
