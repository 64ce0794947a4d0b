/**
 * The person's side of a full cycle, as a client would be: one WebSocket on
 * `/api/v1/events` subscribed to everything the admin can see; each new
 * pending question is answered once over REST. Failed answers are counted,
 * never retried, so a lost answer shows as an agent that never finishes.
 */
import { WebSocket } from 'ws';
import type { ClarionEvent, ServerFrame } from '../src/events/index.js';
import { ADMIN_TOKEN, ANSWER } from './clarion-instance.js';
import { BenchClient } from './http-client.js';

export interface Responder {
  /** Answers that did not come back 200. */
  failures(): number;
  close(): void;
}

export async function startResponder(serverUrl: string): Promise<Responder> {
  const client = new BenchClient(serverUrl);
  const answered = new Set<string>();
  let failures = 0;
  const socket = new WebSocket(`${serverUrl.replace(/^http/, 'ws')}/api/v1/events`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  const subscribed = new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.on('message', (data: Buffer) => {
      const frame = JSON.parse(data.toString('utf8')) as ServerFrame;
      if (frame.type === 'subscribed') resolve();
      if (frame.type === 'event') answer(frame.event);
    });
  });
  socket.once('open', () => {
    socket.send(JSON.stringify({ type: 'subscribe', all: true }));
  });

  function answer(event: ClarionEvent): void {
    if (event.type !== 'message.added' || event.message.type !== 'clarification_request') return;
    const pendingId = event.message.metadata.pending_id;
    if (typeof pendingId !== 'string' || answered.has(pendingId)) return;
    answered.add(pendingId);
    client
      .post(`/api/v1/clarification/${pendingId}/respond`, ANSWER, {
        authorization: `Bearer ${ADMIN_TOKEN}`,
      })
      .then(
        (reply) => {
          if (reply.status !== 200) failures++;
        },
        () => {
          failures++;
        },
      );
  }

  await subscribed;
  return {
    failures: () => failures,
    close() {
      socket.terminate();
      client.close();
    },
  };
}
