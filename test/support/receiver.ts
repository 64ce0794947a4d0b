/**
 * A real HTTP receiver on loopback for notification tests: records every
 * request (method, path, headers, raw body) and answers with whatever the
 * test's `respond` says, possibly after a delay. Stands in for a webhook
 * endpoint, an ntfy server or Slack.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly at: number;
}

export interface Reply {
  readonly status: number;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  readonly delayMs?: number;
  /** Answers only once this settles (and `delayMs` passed): a send held until the test lets go. */
  readonly until?: Promise<unknown>;
}

export interface Receiver {
  readonly url: string;
  readonly received: Received[];
  /** Decides each reply; the n-th request (from 0) is `index`. */
  respond: (request: Received, index: number) => Reply;
  close(): Promise<void>;
}

export async function startReceiver(
  respond: (request: Received, index: number) => Reply = () => ({ status: 200 }),
): Promise<Receiver> {
  const received: Received[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let closed = false;
  const receiver: Receiver = {
    url: '',
    received,
    respond,
    close: () => Promise.resolve(),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: Received = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      const index = received.length;
      received.push(request);
      const reply = receiver.respond(request, index);
      const answer = () => {
        res.writeHead(reply.status, { 'content-type': 'text/plain', ...reply.headers });
        res.end(reply.body ?? '');
      };
      // A held reply let go after `close` has no connection left to answer on.
      const send = () => {
        if (!reply.until) {
          answer();
          return;
        }
        void reply.until.then(() => {
          if (!closed) answer();
        });
      };
      if (reply.delayMs) {
        const timer = setTimeout(() => {
          timers.delete(timer);
          send();
        }, reply.delayMs);
        timers.add(timer);
      } else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        closed = true;
        for (const timer of timers) clearTimeout(timer);
        server.close(() => {
          resolve();
        });
        server.closeAllConnections();
      }),
  });
}
