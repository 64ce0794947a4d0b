/**
 * An agent as the benchmarks play it: the MCP SDK's client over Streamable
 * HTTP with its own agent token, calling `ask_user_question` and blocking
 * until the answer comes back, as a coding agent does. A wait that may
 * outlast the SDK's 60 s request timeout asks for progress notifications and
 * lets each one reset the timeout, as a long-waiting agent must (the server
 * sends one every 20 s); short waits skip that, so the full-cycle benchmark
 * does not pay for a heartbeat timer it never needs.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';

export interface AgentOptions {
  /** Sees every HTTP status the agent's transport receives (the load benchmark counts 5xx). */
  onStatus?: (status: number) => void;
  /** Told of each request sent again after its connection was reset. */
  onRetry?: () => void;
  /** The MCP client's name (an external agent's task is named after it). */
  clientName?: string;
}

/** What an agent read from one `ask_user_question` call. */
export interface AskOutcome {
  /** `waiting`: an ask returned early, still open; `wait_for_answer` collects it. */
  status: 'answered' | 'skipped' | 'open' | 'waiting' | 'error';
  pendingId: string | undefined;
  /** Option IDs chosen for question `q1`, when answered. */
  selected: string[];
}

export async function connectAgent(
  serverUrl: string,
  secret: string,
  options: AgentOptions = {},
): Promise<Client> {
  const client = new Client({
    name: options.clientName ?? 'clarion-bench-agent',
    version: '1.0.0',
  });
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', serverUrl), {
    requestInit: { headers: { Authorization: `Bearer ${secret}` } },
    fetch: retryingFetch(options),
  });
  await client.connect(transport);
  return client;
}

/**
 * `fetch`, sending a request once more when its connection was reset before
 * any response. The server keeps idle connections 65 s, longer than the
 * client's own idle timeout, so a reused socket should never be one the
 * server is closing; when it was (that was the case with a 5 s server
 * timeout), sending again is what an agent must do, is safe (an identical
 * `ask_user_question` retry reuses its bundle, DESIGN §5) and is counted.
 */
function retryingFetch(options: AgentOptions) {
  return async (url: string | URL, init?: RequestInit): Promise<Response> => {
    let response: Response;
    try {
      response = await fetch(url, init);
    } catch (error) {
      if (!connectionReset(error)) throw error;
      options.onRetry?.();
      response = await fetch(url, init);
    }
    options.onStatus?.(response.status);
    return response;
  };
}

function connectionReset(error: unknown): boolean {
  const cause =
    error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  return cause?.code === 'ECONNRESET' || cause?.code === 'UND_ERR_SOCKET';
}

export interface AskOptions {
  signal?: AbortSignal;
  /** Keep the call alive past 60 s on the server's progress notifications. */
  longWait?: boolean;
}

export async function askQuestion(
  client: Client,
  args: Record<string, unknown>,
  options: AskOptions = {},
): Promise<AskOutcome> {
  const result = await client.callTool(
    { name: 'ask_user_question', arguments: args },
    CallToolResultSchema,
    {
      ...(options.longWait === true ? { onprogress: () => {}, resetTimeoutOnProgress: true } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    },
  );
  return askOutcome(result);
}

/** `wait_for_answer` for `pendingId`: what an agent does with an ask that came back open. */
export async function waitForAnswer(
  client: Client,
  pendingId: string,
  options: AskOptions & { timeoutSeconds?: number } = {},
): Promise<AskOutcome> {
  const result = await client.callTool(
    {
      name: 'wait_for_answer',
      arguments: { pending_id: pendingId, timeout_seconds: options.timeoutSeconds ?? 30 },
    },
    CallToolResultSchema,
    {
      ...(options.longWait === true ? { onprogress: () => {}, resetTimeoutOnProgress: true } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    },
  );
  return askOutcome(result);
}

function askOutcome(result: Awaited<ReturnType<Client['callTool']>>): AskOutcome {
  const content = result.structuredContent as
    | { status?: unknown; pending_id?: unknown; answers?: Record<string, { selected?: unknown }> }
    | undefined;
  const status = content?.status;
  const selected = content?.answers?.q1?.selected;
  return {
    status:
      result.isError === true
        ? 'error'
        : status === 'answered' || status === 'skipped' || status === 'open' || status === 'waiting'
          ? status
          : 'error',
    pendingId: typeof content?.pending_id === 'string' ? content.pending_id : undefined,
    selected: Array.isArray(selected)
      ? selected.map((option) => String((option as { id?: unknown }).id))
      : [],
  };
}
