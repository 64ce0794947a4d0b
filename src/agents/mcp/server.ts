/**
 * One MCP session: an SDK `McpServer` with Clarion's tools, connected to its
 * own `WebStandardStreamableHTTPServerTransport`. Sessioned rather than
 * stateless because the tools need what only a session remembers: the
 * client's name from `initialize` (an external agent's task is named after
 * it) and the external session found for it. Each long tool call still
 * streams on its own POST's SSE response, so progress notifications reach the
 * call they belong to and a closed connection ends exactly that call.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { MAX_MCP_BODY_BYTES, MAX_QUESTIONS } from '../../wire/index.js';
import { registerClarionTools, type McpSessionHooks, type McpToolDeps } from './tools.js';

export const MCP_SERVER_NAME = 'clarion';
export const MCP_SERVER_VERSION = '0.1.0';

const ASKING =
  'Clarion connects you with the person you work for. When you need a decision or ' +
  `information only they have, call ask_user_question with 1-${MAX_QUESTIONS} multiple-choice questions ` +
  'and wait for the answer. If the result is waiting, call wait_for_answer with its pending_id.';

/**
 * What `initialize` tells the client, by who opened the session: only an
 * agent Clarion started is resumed with a new turn when a late answer
 * comes; to anyone else nothing arrives unless they call wait_for_answer.
 */
export function instructionsFor(openedBy: McpSessionHooks['openedBy']): string {
  switch (openedBy) {
    case 'agent':
      return (
        `${ASKING} If it is open, continue with other work: the answer arrives later (or call ` +
        'wait_for_answer with the pending_id when told to).'
      );
    case 'external_agent':
      return (
        `${ASKING} If it is open, the question stays open but nothing arrives by itself: ` +
        'call wait_for_answer with its pending_id to collect the answer. If a call ended ' +
        'without a result, list_pending_questions gives the pending_id of every open question.'
      );
    case 'user':
      return (
        `${ASKING} If it is open, nothing arrives by itself: call wait_for_answer with its ` +
        'pending_id to collect the answer. This token acts as a person, so it may also answer ' +
        'open questions with answer_question (list_pending_questions gives their IDs).'
      );
  }
}

export interface McpSessionHandle {
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly server: McpServer;
  /** Tool calls still running. */
  inFlight(): number;
  /** Asks held past their calls (`McpSessionHooks.holding`). */
  held(): number;
  /** Of those, agents' asks that last until their turns end. */
  heldForTurns(): number;
  /** Whether a tool call with this JSON-RPC request ID is still running. */
  running(requestId: RequestId): boolean;
  close(): Promise<void>;
}

/** Who the client said it is in `initialize`. */
export interface McpClientOrigin {
  readonly clientInfo: { readonly name: string; readonly version: string };
  readonly capabilities: Record<string, unknown>;
}

/** What an MCP session's `initialize` told its server: enough to open it again elsewhere. */
export interface McpSessionOrigin extends McpClientOrigin {
  /** The version the client's later requests carry (`mcp-protocol-version`). */
  readonly protocolVersion: string;
}

export interface McpSessionCallbacks {
  /** The transport assigned the session its ID (on `initialize`, or its replay). */
  onInitialized(sessionId: string, handle: McpSessionHandle): void;
  /** The client ended the session (DELETE) or it was closed here. */
  onClosed(sessionId: string): void;
  /** The client ended the session (DELETE): it is over on every replica. */
  onEndedByClient?(sessionId: string): void;
  /** A tool call of the session finished: the session was in use until now. */
  onCallEnded?(sessionId: string): void;
}

/**
 * Opens a session under `sessionId` (its `initialize` is still to come); with
 * `resume`, one another replica opened (several replicas, no sticky routing):
 * the client's own `initialize` is replayed here, so the tools see the same
 * client.
 */
export async function openMcpSession(
  deps: McpToolDeps,
  openedBy: McpSessionHooks['openedBy'],
  callbacks: McpSessionCallbacks,
  opening: { sessionId: string; resume?: McpSessionOrigin },
): Promise<McpSessionHandle> {
  const { resume } = opening;
  let calls = 0;
  let held = 0;
  let heldForTurns = 0;
  // By request ID: a count, since a call under a running call's ID may have been let in.
  const runningIds = new Map<RequestId, number>();
  let closed = false;
  // Ends the asks a client without progress left waiting (`bounded-ask.ts`).
  const ended = new AbortController();
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => opening.sessionId,
    onsessioninitialized: (sessionId) => {
      callbacks.onInitialized(sessionId, handle);
    },
    onsessionclosed: (sessionId) => {
      ended.abort();
      callbacks.onClosed(sessionId);
      callbacks.onEndedByClient?.(sessionId);
    },
    maxRequestBodySize: MAX_MCP_BODY_BYTES,
  });
  const server = new McpServer(
    { name: MCP_SERVER_NAME, version: MCP_SERVER_VERSION },
    { instructions: instructionsFor(openedBy) },
  );
  registerClarionTools(server, deps, {
    openedBy,
    ended: ended.signal,
    closeStream: (requestId) => {
      transport.closeSSEStream(requestId);
    },
    callStarted: (requestId) => {
      calls += 1;
      runningIds.set(requestId, (runningIds.get(requestId) ?? 0) + 1);
    },
    holding: (askEnded, untilTurnEnds) => {
      held += 1;
      if (untilTurnEnds) heldForTurns += 1;
      void askEnded.finally(() => {
        held -= 1;
        if (untilTurnEnds) heldForTurns -= 1;
      });
    },
    callEnded: (requestId) => {
      calls -= 1;
      const left = (runningIds.get(requestId) ?? 1) - 1;
      if (left > 0) runningIds.set(requestId, left);
      else runningIds.delete(requestId);
      const sessionId = transport.sessionId;
      if (sessionId !== undefined) callbacks.onCallEnded?.(sessionId);
    },
  });
  server.server.onerror = (error) => {
    // Protocol-level trouble (a response for a connection that closed): worth a trace, not a failure.
    deps.logger.debug({ err: error }, 'mcp protocol error');
  };
  await server.connect(transport);
  const handle: McpSessionHandle = {
    transport,
    server,
    inFlight: () => calls,
    held: () => held,
    heldForTurns: () => heldForTurns,
    running: (requestId) => runningIds.has(requestId),
    close: async () => {
      if (closed) return;
      closed = true;
      ended.abort();
      const sessionId = transport.sessionId;
      await server.close();
      if (sessionId !== undefined) callbacks.onClosed(sessionId);
    },
  };
  if (resume) await replayInitialize(transport, resume);
  return handle;
}

/**
 * Feeds the transport the client's `initialize` and `initialized` again;
 * their replies go nowhere. The notification carries the session's ID as
 * the client's did: the transport refuses one without it, and its server
 * would not hear the client initialized.
 */
export async function replayInitialize(
  transport: WebStandardStreamableHTTPServerTransport,
  origin: McpSessionOrigin,
): Promise<void> {
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    new Request('http://clarion.invalid/mcp', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify(body),
    });
  const initialized = await transport.handleRequest(
    post({
      jsonrpc: '2.0',
      id: 'resume',
      method: 'initialize',
      params: {
        protocolVersion: origin.protocolVersion,
        capabilities: origin.capabilities,
        clientInfo: origin.clientInfo,
      },
    }),
  );
  await initialized.text();
  // Made by the replayed `initialize`; none when the transport refused it.
  const sessionId = transport.sessionId;
  if (sessionId === undefined) return;
  const notified = await transport.handleRequest(
    post(
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { 'mcp-session-id': sessionId, 'mcp-protocol-version': origin.protocolVersion },
    ),
  );
  await notified.text();
}
