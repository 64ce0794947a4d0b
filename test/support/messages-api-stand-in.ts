/**
 * A scripted local stand-in for the Anthropic Messages API, so the real
 * Claude Code runs offline in tests (`ANTHROPIC_BASE_URL` points here).
 * `POST /v1/messages` answers from a script, streamed as SSE when asked;
 * every other path gets a harmless empty answer. Each request is kept for
 * the test to read.
 *
 * The script sees the request body and returns the assistant's content:
 * text blocks and tool calls, with the stop reason they imply.
 */
import type { ServerResponse } from 'node:http';
import { startLocalHttpServer } from './local-http-server.js';

export type AssistantBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

export interface MessagesRequest {
  model?: string;
  stream?: boolean;
  tools?: { name: string }[];
  messages: { role: string; content: string | Record<string, unknown>[] }[];
}

export type MessagesScript = (request: MessagesRequest) => AssistantBlock[];

export interface MessagesApiStandIn {
  readonly url: string;
  /** Every `POST /v1/messages` body, in arrival order. */
  readonly requests: MessagesRequest[];
  close(): Promise<void>;
}

export async function startMessagesApiStandIn(script: MessagesScript): Promise<MessagesApiStandIn> {
  const requests: MessagesRequest[] = [];
  let counter = 0;
  const server = await startLocalHttpServer((req, res, body, path) => {
    if (req.method === 'POST' && path === '/v1/messages') {
      const request = JSON.parse(body) as MessagesRequest;
      requests.push(request);
      counter += 1;
      answerMessages(res, request, script(request), `msg_standin_${counter}`);
      return;
    }
    if (req.method === 'POST' && path === '/v1/messages/count_tokens') {
      json(res, { input_tokens: 100 });
      return;
    }
    json(res, path.startsWith('/v1/models') ? { data: [], has_more: false } : {});
  });
  return { url: server.origin, requests, close: () => server.close() };
}

function json(res: ServerResponse, value: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

function answerMessages(
  res: ServerResponse,
  request: MessagesRequest,
  blocks: AssistantBlock[],
  id: string,
): void {
  const stopReason = blocks.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn';
  const usage = { input_tokens: 100, output_tokens: 20 };
  const model = request.model ?? 'claude-stand-in';
  if (!request.stream) {
    json(res, {
      id,
      type: 'message',
      role: 'assistant',
      model,
      content: blocks,
      stop_reason: stopReason,
      stop_sequence: null,
      usage,
    });
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (type: string, data: Record<string, unknown>) => {
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  };
  send('message_start', {
    message: {
      id,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 100, output_tokens: 1 },
    },
  });
  blocks.forEach((block, index) => {
    if (block.type === 'text') {
      send('content_block_start', { index, content_block: { type: 'text', text: '' } });
      send('content_block_delta', { index, delta: { type: 'text_delta', text: block.text } });
    } else {
      send('content_block_start', {
        index,
        content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
      });
      send('content_block_delta', {
        index,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
      });
    }
    send('content_block_stop', { index });
  });
  send('message_delta', {
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: 20 },
  });
  send('message_stop', {});
  res.end();
}
