/**
 * The load generator's HTTP client: `node:http` with a keep-alive agent,
 * lighter than `fetch`, and the same for Clarion and the floor so that the
 * client's own cost weighs the same on both sides of a ratio.
 */
import { Agent, request } from 'node:http';

export interface JsonReply {
  status: number;
  body: string;
}

export class BenchClient {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 64 });

  constructor(private readonly baseUrl: string) {}

  post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<JsonReply> {
    return this.retryStale('POST', path, JSON.stringify(body), headers);
  }

  get(path: string, headers: Record<string, string> = {}): Promise<JsonReply> {
    return this.retryStale('GET', path, undefined, headers);
  }

  private async retryStale(
    method: 'GET' | 'POST',
    path: string,
    payload: string | undefined,
    headers: Record<string, string>,
  ): Promise<JsonReply> {
    try {
      return await this.send(method, path, payload, headers, this.agent);
    } catch (error) {
      // The server closes idle keep-alive sockets (after a long data load, say); a
      // request that raced that close never reached it, so sending it again is safe.
      // Again on a new connection: the pool's other idle sockets may be closing too.
      if (error instanceof StaleSocket) return this.send(method, path, payload, headers, false);
      throw error;
    }
  }

  private send(
    method: 'GET' | 'POST',
    path: string,
    payload: string | undefined,
    headers: Record<string, string>,
    agent: Agent | false,
  ): Promise<JsonReply> {
    const url = new URL(path, this.baseUrl);
    const bodyHeaders =
      payload === undefined
        ? {}
        : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) };
    return new Promise((resolve, reject) => {
      const req = request(
        url,
        { method, agent, headers: { ...headers, ...bodyHeaders } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
          });
          res.on('error', reject);
        },
      );
      // A hung server must fail the run, not stall it.
      req.setTimeout(60_000, () => req.destroy(new Error(`timeout ${method} ${path}`)));
      req.on('error', (error: NodeJS.ErrnoException) => {
        reject(req.reusedSocket && error.code === 'ECONNRESET' ? new StaleSocket(error) : error);
      });
      req.end(payload);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

class StaleSocket extends Error {
  constructor(cause: Error) {
    super('reused keep-alive socket was closed by the server', { cause });
    this.name = 'StaleSocket';
  }
}
