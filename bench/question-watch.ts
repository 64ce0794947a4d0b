/**
 * Learns pending IDs the way a client does: one admin WebSocket on
 * `/api/v1/events`, subscribed to everything, reporting each new question's
 * pending ID per session (or in the order asked). The benchmarks use it to
 * find the bundle an ask created without polling the database while it is
 * measured.
 */
import { WebSocket } from 'ws';
import type { ServerFrame } from '../src/events/index.js';

export interface QuestionWatch {
  /** Resolves with the pending ID of the next question asked in `sessionId`. */
  next(sessionId: string, timeoutMs?: number): Promise<string>;
  close(): void;
}

export function watchQuestions(serverUrl: string, token: string): Promise<QuestionWatch> {
  return watch(serverUrl, token, (sessionId) => sessionId);
}

/** Questions in the order they are asked, whatever their session (one not known beforehand). */
export interface ArrivalWatch {
  /** Resolves with the pending ID of the next question asked anywhere the token sees. */
  next(timeoutMs?: number): Promise<string>;
  close(): void;
}

const ANYWHERE = '*';

export async function watchArrivals(serverUrl: string, token: string): Promise<ArrivalWatch> {
  const watched = await watch(serverUrl, token, () => ANYWHERE);
  return {
    next: (timeoutMs) => watched.next(ANYWHERE, timeoutMs),
    close: () => {
      watched.close();
    },
  };
}

/**
 * Whether a frame can be the subscription's acknowledgement or a new message:
 * a cheap look at the bytes before parsing. The server still sends every
 * frame; the watcher only skips parsing those it would drop, work that
 * counted as Clarion's in the floor benchmark, whose floors have no watcher.
 */
function mayName(data: Buffer): boolean {
  return data.includes('"message.added"') || data.includes('"subscribed"');
}

/** Pending IDs queued per `keyOf(session ID)`, each handed to the first `next` of its key. */
async function watch(
  serverUrl: string,
  token: string,
  keyOf: (sessionId: string) => string,
): Promise<QuestionWatch> {
  const seen = new Map<string, string[]>();
  const waiting = new Map<string, (pendingId: string) => void>();
  const socket = new WebSocket(`${serverUrl.replace(/^http/, 'ws')}/api/v1/events`, {
    headers: { authorization: `Bearer ${token}` },
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.on('message', (data: Buffer) => {
      if (!mayName(data)) return;
      const frame = JSON.parse(data.toString('utf8')) as ServerFrame;
      if (frame.type === 'subscribed') resolve();
      if (frame.type !== 'event') return;
      const { event } = frame;
      if (event.type !== 'message.added' || event.message.type !== 'clarification_request') return;
      const pendingId = event.message.metadata.pending_id;
      if (typeof pendingId !== 'string') return;
      const key = keyOf(event.session_id);
      const resolveWaiter = waiting.get(key);
      if (resolveWaiter) {
        waiting.delete(key);
        resolveWaiter(pendingId);
      } else {
        seen.set(key, [...(seen.get(key) ?? []), pendingId]);
      }
    });
    socket.once('open', () => {
      socket.send(JSON.stringify({ type: 'subscribe', all: true }));
    });
  });
  return {
    next(key, timeoutMs = 10_000) {
      const first = seen.get(key)?.shift();
      if (first !== undefined) return Promise.resolve(first);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(key);
          const where = key === ANYWHERE ? 'anywhere' : `in session ${key}`;
          reject(new Error(`no question seen ${where} within ${timeoutMs} ms`));
        }, timeoutMs);
        waiting.set(key, (pendingId) => {
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
