/**
 * A TCP proxy in front of a server, to cut one process off from it without
 * touching anyone else's connections. `blackhole` is a network partition as
 * the cut-off side sees it: its connections stay open, and nothing sent on
 * them, or on new ones, is answered; `restore` heals it for what connects
 * after (what was dropped meanwhile is lost, as in a real partition).
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  readonly port: number;
  /** From now on nothing passes either way; connections stay open. */
  blackhole(): void;
  /**
   * Blackholes once a client sends `text` (that send included): a partition
   * that begins just as one statement goes out, after its connection is up.
   * With `nth`, the sends of `text` before the nth pass.
   */
  blackholeWhenSent(text: string, nth?: number): void;
  /**
   * Holds what one client connection sends once it sends `text` (that send
   * included), other connections passing: a statement delayed on its way,
   * which the server runs when `release` delivers it.
   */
  holdWhenSent(text: string): void;
  /**
   * Ends, without passing it on, the connection that next sends `text`: a
   * connection lost just as a statement goes out. Each call arms once.
   */
  resetWhenSent(text: string): void;
  /** How many `resetWhenSent` have ended their connection so far. */
  resetsDone(): number;
  /** Delivers what `holdWhenSent` held, in order, and lets that connection pass again. */
  release(): void;
  /** From now on everything passes again. */
  restore(): void;
  /**
   * Ends every connection open now and lets new ones pass: a frozen server
   * thawed after its clients' sockets reset, so a statement cut off fails at
   * once rather than at its reply bound.
   */
  resetConnections(): void;
  /** Client connections open now. */
  openConnections(): number;
  /** Ends every connection and stops listening. */
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const clients = new Set<Socket>();
  let passing = true;
  let cutOn: string | undefined;
  /** Sends of `cutOn` still to pass before the cut. */
  let cutAfter = 0;
  let holdOn: string | undefined;
  let held: { upstream: Socket; chunks: Buffer[] } | undefined;
  const resetOn: string[] = [];
  let resets = 0;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    // A reset on one side ends the pair below; the error itself says nothing more.
    socket.on('error', () => undefined);
  };
  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    track(client);
    clients.add(client);
    client.on('close', () => clients.delete(client));
    track(upstream);
    client.on('data', (chunk: Buffer) => {
      const reset = resetOn.findIndex((text) => chunk.includes(text));
      if (reset >= 0) {
        resetOn.splice(reset, 1);
        resets += 1;
        client.destroy();
        upstream.destroy();
        return;
      }
      if (cutOn !== undefined && chunk.includes(cutOn)) {
        if (cutAfter > 0) cutAfter -= 1;
        else {
          passing = false;
          cutOn = undefined;
        }
      }
      if (holdOn !== undefined && held === undefined && chunk.includes(holdOn)) {
        holdOn = undefined;
        held = { upstream, chunks: [] };
      }
      if (held?.upstream === upstream) held.chunks.push(chunk);
      else if (passing) upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (passing) client.write(chunk);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('proxy has no port');
  return {
    port: address.port,
    blackhole() {
      passing = false;
    },
    blackholeWhenSent(text, nth = 1) {
      cutOn = text;
      cutAfter = nth - 1;
    },
    holdWhenSent(text) {
      holdOn = text;
    },
    resetWhenSent(text) {
      resetOn.push(text);
    },
    resetsDone: () => resets,
    release() {
      const released = held;
      held = undefined;
      holdOn = undefined;
      for (const chunk of released?.chunks ?? []) released?.upstream.write(chunk);
    },
    restore() {
      passing = true;
      cutOn = undefined;
    },
    resetConnections() {
      passing = true;
      cutOn = undefined;
      for (const socket of sockets) socket.destroy();
    },
    openConnections: () => clients.size,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
    },
  };
}
