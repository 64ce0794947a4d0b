/**
 * A browser's events socket as tests play it: a real `ws` client on a running
 * server's `/api/v1/events`, subscribed to everything its bearer may see,
 * keeping every event it hears in order.
 */
import { WebSocket } from 'ws';
import type { ClarionEvent } from '../../src/events/index.js';
import { eventually } from './clarification-harness.js';

export interface EventsListener {
  /** Every event heard since the subscription was confirmed, oldest first. */
  readonly heard: ClarionEvent[];
  close(): void;
}

/** Resolves once the server confirmed the subscription, so nothing after it is missed. */
export async function subscribeAll(serverUrl: string, token: string): Promise<EventsListener> {
  const socket = new WebSocket(`${serverUrl.replace('http', 'ws')}/api/v1/events`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const heard: ClarionEvent[] = [];
  let subscribed = false;
  socket.on('message', (data: Buffer) => {
    const frame = JSON.parse(data.toString('utf8')) as { type: string; event?: ClarionEvent };
    if (frame.type === 'subscribed') subscribed = true;
    if (frame.event) heard.push(frame.event);
  });
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  socket.send(JSON.stringify({ type: 'subscribe', all: true }));
  await eventually(() => subscribed);
  return {
    heard,
    close: () => {
      socket.close();
    },
  };
}
