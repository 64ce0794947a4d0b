/**
 * `clarion mcp-stdio`: an MCP stdio server for agents that cannot speak
 * Streamable HTTP. It understands nothing of the tools: every JSON-RPC
 * message from stdin goes to Clarion's `/mcp` with the bearer token, and
 * every response and notification (progress included) comes back on stdout.
 * Messages are forwarded in arrival order, so `initialize` has its session
 * before anything that needs it.
 */
import type { Readable, Writable } from 'node:stream';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../../observability/index.js';

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

export async function runStdioBridge(options: StdioBridgeOptions): Promise<StdioBridge> {
  const { logger } = options;
  const local = new StdioServerTransport(options.stdin, options.stdout);
  const remote = new StreamableHTTPClientTransport(new URL(options.url), {
    requestInit: { headers: { Authorization: `Bearer ${options.token}` } },
  });
  const initializeIds = new Set<RequestId>();
  let queue = Promise.resolve();
  let closing = false;
  let markClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    markClosed = resolve;
  });

  const close = async () => {
    if (closing) return;
    closing = true;
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
    if (isJSONRPCRequest(message) && message.method === 'initialize') initializeIds.add(message.id);
    queue = queue
      .then(() => remote.send(message))
      .catch((error: unknown) => refuse(message, error))
      .catch((error: unknown) => {
        logger.warn({ err: error }, 'mcp bridge could not answer the local client');
      });
  };
  remote.onmessage = (message) => {
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
