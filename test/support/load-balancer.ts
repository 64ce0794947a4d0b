/**
 * A small HTTP load balancer for the cluster suites, behaving as nginx or
 * HAProxy do in front of several replicas: it spreads requests (and event
 * WebSockets) round robin over the upstreams it believes are up, checks
 * each one's `/healthz` and takes it out while that is not a 200 (a
 * draining replica says 503), and takes it out at once when it refuses a
 * connection. A request is sent again to another upstream only when its
 * connection was refused, so no byte of it reached a server; one cut after
 * that gets a 502 (or, once the reply began, a cut reply), never a retry.
 * Upstream connections are not kept alive (nginx's default), so a refused
 * connection is the only way a stopped replica is seen by a new request.
 */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';

const HEALTH_INTERVAL_MS = 100;
const HEALTH_TIMEOUT_MS = 1_000;

export interface BalancedReply {
  readonly method: string;
  readonly path: string;
  readonly upstream: string | undefined;
  readonly status: number;
  /** Why the balancer answered it itself (the upstream's error code). */
  readonly cause?: string;
}

export interface LoadBalancer {
  readonly url: string;
  /** A new upstream (a started replica), up until its health says otherwise. */
  add(upstreamUrl: string): void;
  /** An upstream gone for good (a stopped replica, once it exited). */
  remove(upstreamUrl: string): void;
  /** Every reply with a status of 500 or more the balancer gave a client, its own 502s included. */
  readonly serverErrors: readonly BalancedReply[];
  /** Requests served per upstream URL. */
  served(upstreamUrl: string): number;
  /** Requests sent again after a refused connection. */
  retried(): number;
  close(): Promise<void>;
}

interface Upstream {
  readonly url: URL;
  up: boolean;
}

function refused(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ECONNREFUSED';
}

export async function loadBalancer(initial: readonly string[]): Promise<LoadBalancer> {
  const upstreams: Upstream[] = initial.map((url) => ({ url: new URL(url), up: true }));
  const serverErrors: BalancedReply[] = [];
  const served = new Map<string, number>();
  let retried = 0;
  let next = 0;

  /** The next upstream that is up and not tried yet; else any not tried (all may look down briefly). */
  const pick = (tried: ReadonlySet<Upstream>): Upstream | undefined => {
    const candidates = upstreams.filter((upstream) => !tried.has(upstream));
    const up = candidates.filter((upstream) => upstream.up);
    const from = up.length > 0 ? up : candidates;
    if (from.length === 0) return undefined;
    next = (next + 1) % from.length;
    return from[next];
  };

  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      forward(request, response, Buffer.concat(chunks), new Set());
    });
  });

  const note = (
    request: http.IncomingMessage,
    upstream: Upstream | undefined,
    status: number,
    cause?: string,
  ) => {
    if (status >= 500) {
      serverErrors.push({
        method: request.method ?? '',
        path: request.url ?? '',
        upstream: upstream?.url.origin,
        status,
        ...(cause === undefined ? {} : { cause }),
      });
    }
  };

  const forward = (
    request: http.IncomingMessage,
    response: http.ServerResponse,
    body: Buffer,
    tried: Set<Upstream>,
  ) => {
    const upstream = pick(tried);
    if (!upstream) {
      note(request, undefined, 503);
      response.writeHead(503, { 'content-type': 'text/plain' }).end('no upstream');
      return;
    }
    tried.add(upstream);
    const target = new URL(request.url ?? '/', upstream.url);
    const outgoing = http.request(target, {
      method: request.method,
      headers: { ...request.headers, host: target.host, connection: 'close' },
      agent: false,
    });
    outgoing.on('response', (incoming) => {
      const status = incoming.statusCode ?? 502;
      served.set(upstream.url.origin, (served.get(upstream.url.origin) ?? 0) + 1);
      note(request, upstream, status);
      const headers = { ...incoming.headers };
      delete headers.connection;
      response.writeHead(status, headers);
      incoming.pipe(response);
      // A reply cut by the upstream is cut for the client too.
      incoming.on('aborted', () => response.destroy());
    });
    outgoing.on('error', (error) => {
      if (refused(error)) {
        upstream.up = false;
        retried++;
        forward(request, response, body, tried);
        return;
      }
      if (response.headersSent) {
        response.destroy();
        return;
      }
      note(request, upstream, 502, (error as NodeJS.ErrnoException).code ?? error.message);
      response.writeHead(502, { 'content-type': 'text/plain' }).end('bad gateway');
    });
    // A client that hangs up hangs up on the upstream too.
    response.on('close', () => {
      if (!response.writableFinished) outgoing.destroy();
    });
    outgoing.end(body);
  };

  server.on('upgrade', (request: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    client.on('error', () => undefined);
    const tried = new Set<Upstream>();
    const connect = () => {
      const upstream = pick(tried);
      if (!upstream) {
        client.destroy();
        return;
      }
      tried.add(upstream);
      const socket = net.connect(Number(upstream.url.port), upstream.url.hostname);
      socket.once('connect', () => {
        const lines = [`${request.method ?? 'GET'} ${request.url ?? '/'} HTTP/1.1`];
        for (let index = 0; index < request.rawHeaders.length; index += 2) {
          const name = request.rawHeaders[index] ?? '';
          const value = request.rawHeaders[index + 1] ?? '';
          lines.push(`${name}: ${name.toLowerCase() === 'host' ? upstream.url.host : value}`);
        }
        socket.write(`${lines.join('\r\n')}\r\n\r\n`);
        if (head.length > 0) socket.write(head);
        socket.pipe(client);
        client.pipe(socket);
        socket.on('close', () => client.destroy());
        client.on('close', () => socket.destroy());
      });
      socket.on('error', (error) => {
        if (refused(error)) {
          upstream.up = false;
          retried++;
          connect();
          return;
        }
        client.destroy();
      });
    };
    connect();
  });

  const checks = setInterval(() => {
    for (const upstream of upstreams) {
      const check = http.get(
        new URL('/healthz', upstream.url),
        { agent: false, timeout: HEALTH_TIMEOUT_MS },
        (incoming) => {
          upstream.up = incoming.statusCode === 200;
          incoming.resume();
        },
      );
      check.on('timeout', () => check.destroy());
      check.on('error', () => {
        upstream.up = false;
      });
    }
  }, HEALTH_INTERVAL_MS);

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    add(upstreamUrl) {
      upstreams.push({ url: new URL(upstreamUrl), up: true });
    },
    remove(upstreamUrl) {
      const index = upstreams.findIndex((upstream) => upstream.url.origin === upstreamUrl);
      if (index >= 0) upstreams.splice(index, 1);
    },
    serverErrors,
    served: (upstreamUrl) => served.get(new URL(upstreamUrl).origin) ?? 0,
    retried: () => retried,
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(checks);
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
