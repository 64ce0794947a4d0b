/**
 * Learns pending IDs the way a client does: one admin WebSocket on
 * `/api/v1/events`, subscribed to everything, reporting each new question's
 * pending ID per session. The benchmarks use it to find the bundle an
 * in-process ask created without polling the database while it is measured.
 */
import { WebSocket } from 'ws';
import type { ServerFrame } from '../src/events/index.js';

export interface QuestionWatch {
  /** Resolves with the pending ID of the next question asked in `sessionId`. */
  next(sessionId: string, timeoutMs?: number): Promise<string>;
  close(): void;
}

export async function watchQuestions(serverUrl: string, token: string): Promise<QuestionWatch> {
  const seen = new Map<string, string[]>();
  const waiting = new Map<string, (pendingId: string) => void>();
  const socket = new WebSocket(`${serverUrl.replace(/^http/, 'ws')}/api/v1/events`, {
    headers: { authorization: `Bearer ${token}` },
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.on('message', (data: Buffer) => {
      const frame = JSON.parse(data.toString('utf8')) as ServerFrame;
      if (frame.type === 'subscribed') resolve();
      if (frame.type !== 'event') return;
      const { event } = frame;
      if (event.type !== 'message.added' || event.message.type !== 'clarification_request') return;
      const pendingId = event.message.metadata.pending_id;
      if (typeof pendingId !== 'string') return;
      const resolveWaiter = waiting.get(event.session_id);
      if (resolveWaiter) {
        waiting.delete(event.session_id);
        resolveWaiter(pendingId);
      } else {
        seen.set(event.session_id, [...(seen.get(event.session_id) ?? []), pendingId]);
      }
    });
    socket.once('open', () => {
      socket.send(JSON.stringify({ type: 'subscribe', all: true }));
    });
  });
  return {
    next(sessionId, timeoutMs = 10_000) {
      const queued = seen.get(sessionId);
      const first = queued?.shift();
      if (first !== undefined) return Promise.resolve(first);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(sessionId);
          reject(new Error(`no question seen in session ${sessionId} within ${timeoutMs} ms`));
        }, timeoutMs);
        waiting.set(sessionId, (pendingId) => {
          clearTimeout(timer);
          resolve(pendingId);
        });
      });
    },
    close() {
      socket.terminate();
    },
  };
}
