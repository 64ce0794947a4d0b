/**
 * A scripted local stand-in for the OpenAI Responses API, so the real Codex
 * runs offline in tests (`openai_base_url` in its `config.toml` points
 * here). `POST /v1/responses` answers from a script as the SSE stream Codex
 * reads: `response.created`, one `response.output_item.done` per item, then
 * `response.completed`. A WebSocket upgrade gets a 426, every other path a
 * 404. Each request is kept
 * for the test to read.
 *
 * The script sees the request body and returns the model's output: a
 * message, or a function call Codex runs (and asks about, when it needs a
 * person's approval) before it sends the call's output back in a new request.
 */
import { startLocalHttpServer } from './local-http-server.js';

export type ModelOutput =
  | { type: 'message'; text: string }
  | { type: 'function_call'; callId: string; name: string; arguments: Record<string, unknown> };

/** What the tests read of a request: the conversation so far. */
export interface ResponsesRequest {
  model?: string;
  input: { type?: string; role?: string; call_id?: string; output?: string; content?: unknown }[];
}

export type ResponsesScript = (request: ResponsesRequest) => ModelOutput[];

export interface ResponsesApiStandIn {
  readonly url: string;
  /** Every `POST /v1/responses` body, in arrival order. */
  readonly requests: ResponsesRequest[];
  close(): Promise<void>;
}

/** The output of the function call `callId` in `request`, once Codex sends it back. */
export function functionCallOutput(request: ResponsesRequest, callId: string): string | undefined {
  const item = request.input.find(
    (entry) => entry.type === 'function_call_output' && entry.call_id === callId,
  );
  return item?.output;
}

export async function startResponsesApiStandIn(
  script: ResponsesScript,
): Promise<ResponsesApiStandIn> {
  const requests: ResponsesRequest[] = [];
  let counter = 0;
  const server = await startLocalHttpServer((req, res, body, path) => {
    if (req.headers.upgrade === 'websocket') {
      // Codex tries a WebSocket first; 426 sends it to plain HTTPS at once, as a proxy would.
      res.writeHead(426, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"the stand-in answers over HTTP only"}}');
      return;
    }
    if (req.method !== 'POST' || path !== '/v1/responses') {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"not served by the stand-in"}}');
      return;
    }
    const request = JSON.parse(body) as ResponsesRequest;
    requests.push(request);
    counter += 1;
    const id = `resp_standin_${counter}`;
    const items = script(request).map((output, index) => outputItem(output, `${id}_${index}`));
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const events = [
      { type: 'response.created', response: { id } },
      ...items.map((item, index) => ({
        type: 'response.output_item.done',
        output_index: index,
        item,
      })),
      {
        type: 'response.completed',
        response: {
          id,
          usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
        },
      },
    ];
    for (const event of events)
      res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
    res.end();
  });
  return { url: `${server.origin}/v1`, requests, close: () => server.close() };
}

function outputItem(output: ModelOutput, id: string): Record<string, unknown> {
  if (output.type === 'message') {
    return {
      type: 'message',
      id,
      role: 'assistant',
      content: [{ type: 'output_text', text: output.text }],
    };
  }
  return {
    type: 'function_call',
    id,
    call_id: output.callId,
    name: output.name,
    arguments: JSON.stringify(output.arguments),
  };
}
