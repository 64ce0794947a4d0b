/**
 * `clarion mcp-stdio`: an MCP stdio server for agents that cannot speak
 * Streamable HTTP. It understands nothing of the tools: every JSON-RPC
 * message from stdin goes to Clarion's `/mcp` with the bearer token, and
 * every response and notification (progress included) comes back on stdout.
 * Messages are forwarded in arrival order, so `initialize` has its session
 * before anything that needs it.
 *
 * A session Clarion no longer knows (404) is opened again with the client's
 * own `initialize`, and the message sent once more: a stdio client cannot
 * initialize again by itself. One refused then is asked for again with the
 * next message.
 *
 * Every request forwarded gets an answer: a call whose response stream ends
 * without its result (Clarion restarted, the network dropped; `/mcp` streams
 * cannot be resumed) is answered with an error, since the SDK's HTTP client
 * would drop it silently and leave the agent waiting for as long as its own
 * timeout, which agents set to hours for a person to answer. An ask's error
 * names the pending ID its progress gave (`PENDING_ID_PROGRESS_META`): once
 * the person answers, the question is no longer listed, and that ID is the
 * agent's only way to the answer.
 */
import type { Readable, Writable } from 'node:stream';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type ProgressToken,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../../observability/index.js';
import { EXHAUSTED, systemClock, systemTimers, withinFreshBudget } from '../../support/index.js';
import { MCP_BRIDGE_REOPEN_MS, MCP_BRIDGE_SESSION_END_MS } from '../../tunables.js';
import { PENDING_ID_PROGRESS_META } from '../../wire/index.js';
import { answeringCutStreams } from './cut-streams.js';

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
 * A cut-off ask whose progress named its question: the person may answer it
 * before the agent is back, and an answered question is no longer listed, so
 * the pending ID is the only way to its answer.
 */
function cutOffAsk(pendingId: string): string {
  return (
    `the connection to Clarion ended before it answered; your question stays open under ` +
    `pending_id ${pendingId}: call wait_for_answer with it to collect the answer`
  );
}

/** What the local client's `initialize` asked, and whether it then said `initialized`. */
interface Opening {
  params: JSONRPCRequest['params'];
  initialized: boolean;
}

export async function runStdioBridge(options: StdioBridgeOptions): Promise<StdioBridge> {
  const { logger } = options;
  const local = new StdioServerTransport(options.stdin, options.stdout);
  /** Forwarded requests the local client has had no response to yet. */
  const unanswered = new Set<RequestId>();
  /** Which unanswered request each progress token belongs to, and the question each waits on. */
  const progressOf = new Map<ProgressToken, RequestId>();
  const askedUnder = new Map<RequestId, string>();
  const answered = (id: RequestId) => {
    unanswered.delete(id);
    askedUnder.delete(id);
    for (const [token, requestId] of progressOf) if (requestId === id) progressOf.delete(token);
  };
  const cutFetch = answeringCutStreams((ids) => {
    for (const id of ids) {
      if (closing || !unanswered.has(id)) continue;
      const pendingId = askedUnder.get(id);
      answered(id);
      logger.warn({ requestId: id, pendingId }, 'mcp bridge: the call ended without its result');
      const error =
        pendingId === undefined
          ? { code: FORWARD_FAILED, message: CUT_OFF }
          : {
              code: FORWARD_FAILED,
              message: cutOffAsk(pendingId),
              data: { pending_id: pendingId },
            };
      local.send({ jsonrpc: '2.0', id, error }).catch((error: unknown) => {
        logger.warn({ err: error }, 'mcp bridge could not answer the local client');
      });
    }
  });
  const initializeIds = new Set<RequestId>();
  /** The local client's `initialize`, and whether it said `initialized`: to open a session again. */
  let opening: Opening | undefined;
  /** Replies to the bridge's own requests (a new session's `initialize`), by ID; never forwarded. */
  const own = new Map<RequestId, (reply: JSONRPCMessage) => void>();
  let reopens = 0;
  let queue = Promise.resolve();
  let closing = false;
  let markClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    markClosed = resolve;
  });

  const openRemote = (): StreamableHTTPClientTransport => {
    const transport = new StreamableHTTPClientTransport(new URL(options.url), {
      requestInit: { headers: { Authorization: `Bearer ${options.token}` } },
      fetch: cutFetch,
    });
    transport.onmessage = (message) => {
      fromRemote(transport, message);
    };
    transport.onerror = (error) => {
      logger.debug({ err: error }, 'mcp bridge http error');
    };
    // A transport put aside for a new session closes without closing the bridge.
    transport.onclose = () => {
      if (transport === remote) void close();
    };
    return transport;
  };
  let remote = openRemote();

  const fromRemote = (transport: StreamableHTTPClientTransport, message: JSONRPCMessage) => {
    // An error about no request in particular has no ID.
    const id =
      isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message) ? message.id : undefined;
    const mine = id === undefined ? undefined : own.get(id);
    if (mine) {
      mine(message);
      return;
    }
    if (id !== undefined) answered(id);
    noteAskedUnder(message);
    // Later HTTP requests must carry the negotiated version, as the SDK client would send it.
    if (isJSONRPCResultResponse(message) && initializeIds.delete(message.id)) {
      const version = message.result.protocolVersion;
      if (typeof version === 'string') transport.setProtocolVersion(version);
    }
    local.send(message).catch((error: unknown) => {
      logger.warn({ err: error }, 'mcp bridge could not write to stdout');
    });
  };

  /** A progress notification naming the question its call waits on (`PENDING_ID_PROGRESS_META`). */
  const noteAskedUnder = (message: JSONRPCMessage) => {
    if (!isJSONRPCNotification(message) || message.method !== 'notifications/progress') return;
    const token = message.params?.progressToken;
    const pendingId = message.params?._meta?.[PENDING_ID_PROGRESS_META];
    if (typeof token !== 'string' && typeof token !== 'number') return;
    const id = progressOf.get(token);
    if (id !== undefined && typeof pendingId === 'string') askedUnder.set(id, pendingId);
  };

  /**
   * Opens a new MCP session with the local client's own `initialize`, when
   * Clarion no longer knows the bridge's (it idled out of the store, or was
   * ended there): an HTTP client initializes again by itself, but a stdio
   * client knows of no session to renew. Calls still open on the old one
   * are answered as cut off.
   */
  const reopen = async (initialize: Opening) => {
    const gone = remote;
    remote = openRemote();
    await gone.close();
    await remote.start();
    reopens += 1;
    const id = `clarion-bridge-reopen-${String(reopens)}`;
    const reply = new Promise<JSONRPCMessage | undefined>((resolve) => {
      own.set(id, resolve);
    });
    try {
      const replied = await withinFreshBudget(
        MCP_BRIDGE_REOPEN_MS,
        systemClock(),
        systemTimers,
        async () => {
          await remote.send({
            jsonrpc: '2.0',
            id,
            method: 'initialize',
            params: initialize.params,
          });
          return reply;
        },
      );
      if (replied === EXHAUSTED || !replied || !isJSONRPCResultResponse(replied)) {
        throw new Error('Clarion did not open a new MCP session for this client');
      }
      const version = replied.result.protocolVersion;
      if (typeof version === 'string') remote.setProtocolVersion(version);
    } finally {
      own.delete(id);
    }
    if (initialize.initialized) {
      await remote.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    }
    logger.info('mcp bridge opened a new session: Clarion no longer knew its own');
  };

  /**
   * Sends a local message on; once more in a new session when Clarion lost
   * the bridge's. A new session refused before (a full quota, Clarion
   * away) is asked for again first: without one, nothing would ever be
   * served again.
   */
  const forward = async (message: JSONRPCMessage) => {
    const initializing = isJSONRPCRequest(message) && message.method === 'initialize';
    if (!initializing && opening && !closing && remote.sessionId === undefined) {
      await reopen(opening);
    }
    try {
      await remote.send(message);
    } catch (error) {
      const sessionGone = error instanceof StreamableHTTPError && error.code === 404;
      if (!sessionGone || initializing || !opening || closing) throw error;
      await reopen(opening);
      await remote.send(message);
    }
  };

  /**
   * Ends the MCP session on Clarion, within a bound: the client is gone, so
   * what it still held there (an ask whose call returned `waiting`) reads
   * detached now, not once the session idles out minutes later.
   */
  const endSession = async () => {
    await withinFreshBudget(MCP_BRIDGE_SESSION_END_MS, systemClock(), systemTimers, () =>
      remote.terminateSession().catch((error: unknown) => {
        logger.warn({ err: error }, 'mcp bridge could not end its session');
      }),
    );
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
    answered(message.id);
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
    if (isJSONRPCRequest(message)) {
      unanswered.add(message.id);
      const token = message.params?._meta?.progressToken;
      if (token !== undefined) progressOf.set(token, message.id);
    }
    if (isJSONRPCRequest(message) && message.method === 'initialize') {
      initializeIds.add(message.id);
      opening = { params: message.params, initialized: false };
    }
    if (isJSONRPCNotification(message) && message.method === 'notifications/initialized') {
      if (opening) opening.initialized = true;
    }
    queue = queue
      .then(() => forward(message))
      .catch((error: unknown) => refuse(message, error))
      .catch((error: unknown) => {
        logger.warn({ err: error }, 'mcp bridge could not answer the local client');
      });
  };
  local.onerror = (error) => {
    logger.warn({ err: error }, 'mcp bridge stdin error');
  };
  local.onclose = () => void close();
  // The agent exiting ends stdin; the SDK's stdio transport does not watch for it.
  options.stdin.once('end', () => void close());

  await remote.start();
  await local.start();
  logger.info({ url: String(options.url) }, 'mcp stdio bridge started');
  return { closed, close };
}
