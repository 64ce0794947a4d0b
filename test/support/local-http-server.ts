/**
 * The local HTTP server under each model API stand-in: it reads a request's
 * whole body, hands it to `handle`, and closes with its connections, so a
 * real agent's model calls stay on this machine.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LocalHttpServer {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  readonly origin: string;
  close(): Promise<void>;
}

export type LocalHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  body: string,
  path: string,
) => void;

export async function startLocalHttpServer(handle: LocalHandler): Promise<LocalHttpServer> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      handle(req, res, Buffer.concat(chunks).toString('utf8'), (req.url ?? '').split('?')[0] ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}
