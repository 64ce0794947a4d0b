/**
 * A replica's death ends its registry's requests for everyone (issue 16),
 * with two real `clarion serve` processes on one real PostgreSQL. A runs an
 * agent waiting for a consent; a socket on B sees the request. A is killed:
 * B's socket hears `user_input.settled` for it (an open tab drops the card
 * without a reload), and the session's transcript says once that the
 * agent's request ended unanswered.
 */
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { USER_INPUT_ENDED_TYPE, type ClarionEvent } from '../../src/wire/index.js';
import { clarionApi } from '../agents/supervisor-support.js';
import { eventually } from '../support/clarification-harness.js';
import { replicaProcesses } from '../support/replicas.js';

const ADMIN_TOKEN = 'kill-replica-ends-requests-token-0123456789';
const LEASE_S = 6;

async function eventsSocket(url: string) {
  const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/api/v1/events`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  const frames: { type: string; event?: ClarionEvent }[] = [];
  socket.on('message', (data: Buffer) => {
    frames.push(JSON.parse(data.toString('utf8')) as { type: string; event?: ClarionEvent });
  });
  await once(socket, 'open');
  socket.send(JSON.stringify({ type: 'subscribe', all: true }));
  await eventually(() => Promise.resolve(frames.some((frame) => frame.type === 'subscribed')));
  return {
    socket,
    requestEvents: (requestId: string) =>
      frames.flatMap((frame) =>
        frame.event && 'request' in frame.event && frame.event.request.id === requestId
          ? [frame.event]
          : [],
      ),
  };
}

describe('a replica killed while its agent waits for a consent', () => {
  const processes = replicaProcesses(ADMIN_TOKEN);
  const sockets: WebSocket[] = [];

  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.close();
    await processes.stopAll();
  });

  it("tells B's subscribers the request ended, and says so once in the transcript", async () => {
    const [a, b] = await processes.start(['replica-a', 'replica-b'], {
      CLARION_LEASE_S: String(LEASE_S),
    });
    if (!a || !b) throw new Error('two replicas expected');
    const onA = clarionApi(a.url, ADMIN_TOKEN);
    const onB = clarionApi(b.url, ADMIN_TOKEN);
    const watching = await eventsSocket(b.url);
    sockets.push(watching.socket);

    const created = await onA('POST', '/api/v1/tasks', {
      title: 'Dies with A',
      prompt: '/permission',
    });
    expect(created.status).toBe(201);
    const sessionId = (created.json as { session: { id: string } }).session.id;
    const listedOnB = async () =>
      (
        (await onB('GET', '/api/v1/user-inputs')).json.requests as {
          id: string;
          session_id: string;
          title: string;
        }[]
      ).filter((request) => request.session_id === sessionId);
    await eventually(async () => (await listedOnB()).length === 1, 30_000);
    const [consent] = await listedOnB();
    if (!consent) throw new Error('the consent is pending');
    await eventually(() => Promise.resolve(watching.requestEvents(consent.id).length > 0), 20_000);
    expect(await processes.leaseHolder(sessionId)).toBe('replica-a');

    a.child.kill('SIGKILL');
    expect((await a.exited).signal).toBe('SIGKILL');

    // B's socket hears the end: a tab on B drops the card as it would an answered one.
    await eventually(
      () =>
        Promise.resolve(
          watching
            .requestEvents(consent.id)
            .some(
              (event) => event.type === 'user_input.settled' && event.request.status === 'settled',
            ),
        ),
      LEASE_S * 1000 + 20_000,
    );
    const ended = async () =>
      (
        (await onB('GET', `/api/v1/sessions/${sessionId}/messages?limit=500`)).json.messages as {
          author: string;
          type: string;
          content: string;
        }[]
      ).filter((message) => message.type === USER_INPUT_ENDED_TYPE);
    const [note, ...more] = await ended();
    expect(more).toEqual([]);
    expect(note?.author).toBe('system');
    expect(note?.content).toContain(`"${consent.title}" ended unanswered`);

    // A replica started again (a start-up recovery of the same sessions) writes no second note.
    const [again] = await processes.start(['replica-c'], { CLARION_LEASE_S: String(LEASE_S) });
    expect(again).toBeDefined();
    expect(await ended()).toHaveLength(1);
  }, 180_000);
});
