/**
 * The demo agent (DESIGN §6): a real ACP agent, scripted by the first word of
 * each prompt (see `commands.ts`), that asks Clarion through its MCP server.
 * Owns its ACP sessions: the Clarion endpoint each was given, the running
 * turn's cancellation, and the conversation's prompts (kept in a history
 * file, so `session/load` in a new process goes on where it stopped;
 * `DEMO_AGENT_NO_LOAD=1` makes it an agent that cannot load; `/ask-detach`'s wait
 * is `detachAfterMs` (see `detach.ts`), which `main.ts` reads from `CLARION_DEMO_DETACH_AFTER_MS`). Invariants: one turn per session at a time; a
 * cancelled turn ends with `cancelled`; it writes nothing but ACP to stdout
 * (logging goes through `log`, which `main.ts` points at stderr).
 */
import { DEMO_DETACH_AFTER_MS, DEMO_MCP_IDLE_TIMEOUT_MS } from '../../tunables.js';
import { randomUUID } from 'node:crypto';
import {
  agent,
  methods,
  PROTOCOL_VERSION,
  RequestError,
  type AgentApp,
  type AgentContext,
  type RequestPermissionRequest,
  type SessionUpdate,
} from '@agentclientprotocol/sdk';
import type { AskInput } from '../../clarification/index.js';
import {
  CONTINUE_LATER_REPLY,
  formatAskReply,
  interpretAskResult,
  type ToolResultLike,
} from './ask-result.js';
import { ClarionMcp, findClarionEndpoint } from './clarion-mcp.js';
import { detachOnceAsked } from './detach.js';
import { DemoHistory } from './history.js';
import { parseCommand, type DemoCommand } from './commands.js';
import {
  actionReply,
  chunkReply,
  PERMISSION_OPTIONS,
  permissionReply,
  plainReply,
  recallReply,
} from './replies.js';

export const DEMO_AGENT_INFO = { name: 'clarion-demo-agent', version: '0.1.0' };

interface DemoSession {
  readonly id: string;
  readonly mcp: ClarionMcp | undefined;
  turn: AbortController | undefined;
  toolCalls: number;
  /** The prompts of this conversation before the running one. */
  readonly prompts: string[];
}

export interface DemoAgent {
  readonly app: AgentApp;
  /** Closes every MCP connection. */
  close(): Promise<void>;
}

export function createDemoAgent(
  log: (message: string) => void,
  options: { history?: DemoHistory; canLoad?: boolean; detachAfterMs?: number } = {},
): DemoAgent {
  const sessions = new Map<string, DemoSession>();
  const history = options.history ?? DemoHistory.fromEnvironment(process.env);
  const canLoad = options.canLoad ?? process.env.DEMO_AGENT_NO_LOAD !== '1';
  const detachAfterMs = options.detachAfterMs ?? DEMO_DETACH_AFTER_MS;

  function open(
    id: string,
    mcpServers: Parameters<typeof findClarionEndpoint>[0],
    prompts: string[],
  ) {
    const endpoint = findClarionEndpoint(mcpServers);
    if (!endpoint) log('session without a clarion HTTP MCP server; asking will be unavailable');
    sessions.set(id, {
      id,
      mcp: endpoint ? new ClarionMcp(endpoint, DEMO_AGENT_INFO) : undefined,
      turn: undefined,
      toolCalls: 0,
      prompts,
    });
  }

  const app = agent({ name: DEMO_AGENT_INFO.name })
    .onRequest(methods.agent.initialize, () => ({
      protocolVersion: PROTOCOL_VERSION,
      agentCapabilities: {
        loadSession: canLoad,
        mcpCapabilities: { http: true, sse: false },
        promptCapabilities: {},
      },
      agentInfo: DEMO_AGENT_INFO,
      authMethods: [],
    }))
    .onRequest(methods.agent.session.new, ({ params }) => {
      const id = randomUUID();
      open(id, params.mcpServers, []);
      // Known from the start, so a load before its first prompt finished still finds it.
      history.save(id, []);
      return { sessionId: id };
    })
    .onRequest(methods.agent.session.load, ({ params }) => {
      const prompts = canLoad ? history.load(params.sessionId) : undefined;
      if (!prompts) throw RequestError.resourceNotFound(params.sessionId);
      open(params.sessionId, params.mcpServers, prompts);
      return {};
    })
    .onNotification(methods.agent.session.cancel, ({ params }) => {
      sessions.get(params.sessionId)?.turn?.abort();
    })
    .onRequest(methods.agent.session.prompt, async ({ params, client }) => {
      const session = sessions.get(params.sessionId);
      if (!session) throw RequestError.sessionNotFound(params.sessionId);
      if (session.turn) throw RequestError.invalidRequest(undefined, 'a turn is already running');
      const turn = new AbortController();
      session.turn = turn;
      const text = params.prompt.map((block) => (block.type === 'text' ? block.text : '')).join('');
      try {
        const reply = await runCommand(session, client, parseCommand(text), {
          signal: turn.signal,
          detachAfterMs,
        });
        session.prompts.push(text);
        history.save(session.id, session.prompts);
        if (turn.signal.aborted) return { stopReason: 'cancelled' };
        for (const chunk of chunkReply(reply)) {
          await sendUpdate(client, session, {
            sessionUpdate: 'agent_message_chunk',
            content: { type: 'text', text: chunk },
          });
        }
        return { stopReason: 'end_turn' };
      } catch (error) {
        if (turn.signal.aborted) return { stopReason: 'cancelled' };
        log(
          `prompt failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
        );
        throw error;
      } finally {
        session.turn = undefined;
      }
    });

  return {
    app,
    close: async () => {
      await Promise.all(
        [...sessions.values()].map(async (session) => {
          await session.mcp?.close();
        }),
      );
    },
  };
}

function sendUpdate(
  client: AgentContext,
  session: DemoSession,
  update: SessionUpdate,
): Promise<void> {
  return client.notify(methods.client.session.update, { sessionId: session.id, update });
}

async function runCommand(
  session: DemoSession,
  client: AgentContext,
  command: DemoCommand,
  { signal, detachAfterMs }: { signal: AbortSignal; detachAfterMs: number },
): Promise<string> {
  switch (command.kind) {
    case 'plain':
      return plainReply(command.text);
    case 'ask':
    case 'ask_multi':
      return ask(session, client, command.ask, signal, { signal, onProgress: () => undefined });
    case 'ask_detach': {
      const detach = detachOnceAsked(detachAfterMs, signal);
      try {
        return await ask(session, client, command.ask, signal, detach);
      } finally {
        detach.dispose();
      }
    }
    case 'permission':
      return askPermission(session, client, signal);
    case 'action':
      return requestAction(session, client, signal);
    case 'recall':
      return recallReply(session.prompts);
  }
}

async function ask(
  session: DemoSession,
  client: AgentContext,
  input: AskInput,
  turnSignal: AbortSignal,
  call: { signal: AbortSignal; onProgress(progress: unknown): void },
): Promise<string> {
  const callSignal = call.signal;
  if (!session.mcp) return 'Clarion’s MCP server was not given to this session, so I cannot ask.';
  const toolCallId = await startToolCall(client, session, 'Asking you a question');
  let result: ToolResultLike;
  try {
    const mcp = await session.mcp.client();
    result = await mcp.callTool({ name: 'ask_user_question', arguments: { ...input } }, undefined, {
      signal: callSignal,
      timeout: DEMO_MCP_IDLE_TIMEOUT_MS,
      resetTimeoutOnProgress: true,
      // Asking for progress makes Clarion send it while it waits, which keeps the call alive.
      onprogress: (progress) => {
        call.onProgress(progress);
      },
    });
  } catch (error) {
    await endToolCall(client, session, toolCallId, 'failed');
    if (turnSignal.aborted) throw error;
    // `/ask-detach` gave up its own wait: the question stays open in Clarion,
    // and its answer will arrive later as a new prompt.
    if (callSignal.aborted) return CONTINUE_LATER_REPLY;
    return `I could not reach Clarion: ${error instanceof Error ? error.message : String(error)}`;
  }
  await endToolCall(client, session, toolCallId, result.isError === true ? 'failed' : 'completed');
  const questionIds = input.questions.map((question, index) => question.id ?? `q${index + 1}`);
  return formatAskReply(interpretAskResult(result), questionIds);
}

async function askPermission(
  session: DemoSession,
  client: AgentContext,
  signal: AbortSignal,
): Promise<string> {
  session.toolCalls += 1;
  const toolCallId = `demo-tool-${session.toolCalls}`;
  const request: RequestPermissionRequest = {
    sessionId: session.id,
    toolCall: {
      toolCallId,
      title: 'Delete the build cache (rm -rf .cache)',
      kind: 'delete',
      status: 'pending',
      content: [{ type: 'content', content: { type: 'text', text: 'rm -rf .cache' } }],
      rawInput: { command: 'rm -rf .cache' },
    },
    options: [...PERMISSION_OPTIONS],
  };
  const response = await client.request(methods.client.session.requestPermission, request, {
    cancellationSignal: signal,
  });
  return permissionReply(response);
}

async function requestAction(
  session: DemoSession,
  client: AgentContext,
  signal: AbortSignal,
): Promise<string> {
  if (!session.mcp) return 'Clarion’s MCP server was not given to this session, so I cannot ask.';
  try {
    const mcp = await session.mcp.client();
    const tools = await mcp.listTools(undefined, { signal });
    if (!tools.tools.some((tool) => tool.name === 'request_user_action')) {
      return 'Requesting an action is not available on this Clarion server.';
    }
    const toolCallId = await startToolCall(
      client,
      session,
      'Asking you to connect the staging database',
    );
    const result = await mcp.callTool(
      {
        name: 'request_user_action',
        arguments: {
          title: 'Connect the staging database',
          instructions: 'Open the link, sign in, and allow read access to the staging database.',
          url: 'https://example.com/connect/staging',
        },
      },
      undefined,
      {
        signal,
        timeout: DEMO_MCP_IDLE_TIMEOUT_MS,
        resetTimeoutOnProgress: true,
        onprogress: () => undefined,
      },
    );
    await endToolCall(
      client,
      session,
      toolCallId,
      result.isError === true ? 'failed' : 'completed',
    );
    return actionReply(result);
  } catch (error) {
    if (signal.aborted) throw error;
    return `I could not reach Clarion: ${error instanceof Error ? error.message : String(error)}`;
  }
}

async function startToolCall(
  client: AgentContext,
  session: DemoSession,
  title: string,
): Promise<string> {
  session.toolCalls += 1;
  const toolCallId = `demo-tool-${session.toolCalls}`;
  await sendUpdate(client, session, {
    sessionUpdate: 'tool_call',
    toolCallId,
    title,
    kind: 'other',
    status: 'in_progress',
  });
  return toolCallId;
}

async function endToolCall(
  client: AgentContext,
  session: DemoSession,
  toolCallId: string,
  status: 'completed' | 'failed',
): Promise<void> {
  await sendUpdate(client, session, { sessionUpdate: 'tool_call_update', toolCallId, status });
}
