/**
 * A refused WebSocket upgrade answered whole. `@hono/node-server` answers an
 * upgrade the app refused with its status and headers only (`Content-Length:
 * 0`), dropping the catalogue's `{error, code}` body the route returned, so a
 * client heard `application/json` and got nothing. Here a refusal (any status
 * from 400) is written whole on the request's socket, which is then closed:
 * the adapter writes nothing on a socket already closed.
 */
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import { UPGRADE_REFUSAL_FLUSH_MAX_MS } from '../tunables.js';

type Fetch = (request: Request, env?: unknown) => Response | Promise<Response>;

/** Headers that describe the connection, not the reply: this module writes its own. */
const HOP_BY_HOP: ReadonlySet<string> = new Set([
  'connection',
  'content-length',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
]);

export function withWholeUpgradeRefusals(fetch: Fetch, flushMaxMs = UPGRADE_REFUSAL_FLUSH_MAX_MS) {
  return async (request: Request, env?: unknown): Promise<Response> => {
    const response = await fetch(request, env);
    const incoming = upgradeOf(env);
    if (incoming === undefined || response.status < 400) return response;
    await refuse(incoming, response, flushMaxMs);
    return response;
  };
}

/**
 * The request under an upgrade: the adapter calls the app with `incoming` and
 * no `outgoing` only for an upgrade, whose reply it writes on the socket.
 */
function upgradeOf(env: unknown): IncomingMessage | undefined {
  if (typeof env !== 'object' || env === null) return undefined;
  const { incoming, outgoing } = env as { incoming?: IncomingMessage; outgoing?: unknown };
  return incoming !== undefined && outgoing === undefined ? incoming : undefined;
}

async function refuse(
  incoming: IncomingMessage,
  response: Response,
  flushMaxMs: number,
): Promise<void> {
  const socket = incoming.socket;
  if (socket.destroyed) return;
  const body = Buffer.from(await response.arrayBuffer());
  const lines = [`HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? ''}`];
  response.headers.forEach((value, name) => {
    if (!HOP_BY_HOP.has(name.toLowerCase())) lines.push(`${name}: ${value}`);
  });
  lines.push(`Content-Length: ${body.length}`, 'Connection: close', '', '');
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, flushMaxMs);
    // Flushed to the kernel (or failed): the close below loses nothing of it.
    socket.end(Buffer.concat([Buffer.from(lines.join('\r\n'), 'latin1'), body]), () => {
      clearTimeout(timer);
      resolve();
    });
  });
  socket.destroy();
}
