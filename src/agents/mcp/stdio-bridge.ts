/**
 * `clarion mcp-stdio`: an MCP stdio server for agents that cannot speak
 * Streamable HTTP. It understands nothing of the tools: every JSON-RPC
 * message from stdin goes to Clarion's `/mcp` with the bearer token, and
 * every response and notification (progress included) comes back on stdout.
 * Messages are forwarded in arrival order, so `initialize` has its session
 * before anything that needs it.
 *
 * Every request forwarded gets an answer: a call whose response stream ends
 * without its result (Clarion restarted, the network dropped; `/mcp` streams
 * cannot be resumed) is answered with an error, since the SDK's HTTP client
 * would drop it silently and leave the agent waiting for as long as its own
 * timeout, which agents set to hours for a person to answer.
 */
import type { Readable, Writable } from 'node:stream';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../../observability/index.js';
import { MCP_BRIDGE_SESSION_END_MS } from '../../tunables.js';
import { requestIdsOf } from './request-ids.js';

export const MCP_URL_ENV = 'CLARION_MCP_URL';
export const TOKEN_ENV = 'CLARION_TOKEN';

export interface StdioBridgeOptions {
  url: string | URL;
  token: string;
  stdin: Readable;
  stdout: Writable;
  logger: Logger;
}

export interface StdioBridge {
  /** Resolves once either side has closed (stdin ended, or the server session is gone). */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

/** JSON-RPC "server error" range: the bridge could not forward the request. */
const FORWARD_FAILED = -32000;

const CUT_OFF =
  'the connection to Clarion ended before it answered; a question you asked stays open ' +
  '(list_pending_questions gives its pending_id, wait_for_answer collects its answer)';

/**
 * `fetch` for the HTTP transport that tells `ended` which requests a POST
 * carried once its event stream ends, however it ends. By then the SDK has
 * read every event the stream held: a result it carried reached
 * `onmessage` first, so only the requests still unanswered were cut off.
 */
function answeringCutStreams(ended: (ids: RequestId[]) => void): FetchLike {
  return async (url, init) => {
    const response = await fetch(url, init);
    const ids = postedRequestIds(init?.body);
    const type = response.headers.get('content-type') ?? '';
    if (ids.length === 0 || !response.ok || !response.body || !type.includes('text/event-stream')) {
      return response;
    }
    // After the SDK's reads of what came before the end, which all run as microtasks.
    const cut = () => setTimeout(ended, 0, ids);
    const reader: ReadableStreamDefaultReader<Uint8Array> = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const chunk = await reader.read();
          if (chunk.done) {
            controller.close();
            cut();
          } else controller.enqueue(chunk.value);
        } catch (error) {
          controller.error(error);
          cut();
        }
      },
      cancel(reason) {
        cut();
        return reader.cancel(reason);
      },
    });
    const { status, statusText, headers } = response;
    return new Response(body, { status, statusText, headers });
  };
}

/** The IDs of the JSON-RPC requests a POST body carries. */
function postedRequestIds(body: unknown): RequestId[] {
  if (typeof body !== 'string') return [];
  try {
    return requestIdsOf(JSON.parse(body));
  } catch {
    return [];
  }
}

export async function runStdioBridge(options: StdioBridgeOptions): Promise<StdioBridge> {
  const { logger } = options;
  const local = new StdioServerTransport(options.stdin, options.stdout);
  /** Forwarded requests the local client has had no response to yet. */
  const unanswered = new Set<RequestId>();
  const remote = new StreamableHTTPClientTransport(new URL(options.url), {
    requestInit: { headers: { Authorization: `Bearer ${options.token}` } },
    fetch: answeringCutStreams((ids) => {
      for (const id of ids) {
        if (closing || !unanswered.delete(id)) continue;
        logger.warn({ requestId: id }, 'mcp bridge: the call ended without its result');
        local
          .send({ jsonrpc: '2.0', id, error: { code: FORWARD_FAILED, message: CUT_OFF } })
          .catch((error: unknown) => {
            logger.warn({ err: error }, 'mcp bridge could not answer the local client');
          });
      }
    }),
  });
  const initializeIds = new Set<RequestId>();
  let queue = Promise.resolve();
  let closing = false;
  let markClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    markClosed = resolve;
  });

  /**
   * Ends the MCP session on Clarion, within a bound: the client is gone, so
   * what it still held there (an ask whose call returned `waiting`) reads
   * detached now, not once the session idles out minutes later.
   */
  const endSession = async () => {
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, MCP_BRIDGE_SESSION_END_MS);
    });
    const ended = remote.terminateSession().catch((error: unknown) => {
      logger.warn({ err: error }, 'mcp bridge could not end its session');
    });
    try {
      await Promise.race([ended, bound]);
    } finally {
      clearTimeout(timer);
    }
  };

  const close = async () => {
    if (closing) return;
    closing = true;
    await endSession();
    const results = await Promise.allSettled([remote.close(), local.close()]);
    for (const result of results) {
      if (result.status === 'rejected')
        logger.warn({ err: result.reason }, 'mcp bridge close failed');
    }
    markClosed();
  };

  /** Tells the local client a request could not be forwarded, so it does not wait forever. */
  const refuse = async (message: JSONRPCMessage, error: unknown) => {
    logger.warn({ err: error }, 'mcp bridge could not forward a message');
    if (!isJSONRPCRequest(message)) return;
    unanswered.delete(message.id);
    const reason =
      error instanceof StreamableHTTPError
        ? `Clarion refused the request (HTTP ${String(error.code)}): ${error.message}`
        : `Clarion is unreachable: ${error instanceof Error ? error.message : String(error)}`;
    await local.send({
      jsonrpc: '2.0',
      id: message.id,
      error: { code: FORWARD_FAILED, message: reason },
    });
  };

  local.onmessage = (message) => {
    if (isJSONRPCRequest(message)) unanswered.add(message.id);
    if (isJSONRPCRequest(message) && message.method === 'initialize') initializeIds.add(message.id);
    queue = queue
      .then(() => remote.send(message))
      .catch((error: unknown) => refuse(message, error))
      .catch((error: unknown) => {
        logger.warn({ err: error }, 'mcp bridge could not answer the local client');
      });
  };
  remote.onmessage = (message) => {
    // An error about no request in particular has no ID.
    if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) {
      if (message.id !== undefined) unanswered.delete(message.id);
    }
    // Later HTTP requests must carry the negotiated version, as the SDK client would send it.
    if (isJSONRPCResultResponse(message) && initializeIds.delete(message.id)) {
      const version = message.result.protocolVersion;
      if (typeof version === 'string') remote.setProtocolVersion(version);
    }
    local.send(message).catch((error: unknown) => {
      logger.warn({ err: error }, 'mcp bridge could not write to stdout');
    });
  };
  local.onerror = (error) => {
    logger.warn({ err: error }, 'mcp bridge stdin error');
  };
  remote.onerror = (error) => {
    logger.debug({ err: error }, 'mcp bridge http error');
  };
  local.onclose = () => void close();
  remote.onclose = () => void close();
  // The agent exiting ends stdin; the SDK's stdio transport does not watch for it.
  options.stdin.once('end', () => void close());

  await remote.start();
  await local.start();
  logger.info({ url: String(options.url) }, 'mcp stdio bridge started');
  return { closed, close };
}
