/**
 * A scripted local stand-in for the Gemini API, so the real Gemini CLI runs
 * offline in tests (`GOOGLE_GEMINI_BASE_URL` points here). A model's
 * `streamGenerateContent` answers from a script as one SSE chunk, the way
 * the CLI reads it; a plain `generateContent` (the CLI's own side calls:
 * choosing a model, judging who speaks next) gets a short JSON answer the
 * CLI may parse or fall back from; `countTokens` a count. Every other path
 * gets a 404. Each scripted request is kept for the test to read.
 *
 * The script sees the request body and returns the model's parts: text, or
 * a function call the CLI runs (and asks about, when it needs a person's
 * approval) before it sends the call's response back in a new request.
 */
import { startLocalHttpServer } from './local-http-server.js';

export type GeminiPart =
  { text: string } | { functionCall: { name: string; args: Record<string, unknown> } };

/** What the tests read of a request: the conversation so far. */
export interface GeminiRequest {
  contents: { role?: string; parts: Record<string, unknown>[] }[];
}

export type GeminiScript = (request: GeminiRequest) => GeminiPart[];

export interface GeminiApiStandIn {
  readonly url: string;
  /** Every `streamGenerateContent` body, in arrival order. */
  readonly requests: GeminiRequest[];
  close(): Promise<void>;
}

/** The response the CLI sent back for its call of `name`, if it has. */
export function functionResponse(
  request: GeminiRequest,
  name: string,
): Record<string, unknown> | undefined {
  for (const content of request.contents) {
    for (const part of content.parts) {
      const response = part.functionResponse as
        { name?: string; response?: Record<string, unknown> } | undefined;
      if (response?.name === name) return response.response ?? {};
    }
  }
  return undefined;
}

const USAGE = { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 };

export async function startGeminiApiStandIn(script: GeminiScript): Promise<GeminiApiStandIn> {
  const requests: GeminiRequest[] = [];
  const server = await startLocalHttpServer((req, res, body, path) => {
    const candidate = (parts: GeminiPart[]) => ({
      candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
      usageMetadata: USAGE,
    });
    if (req.method === 'POST' && path.endsWith(':streamGenerateContent')) {
      const request = JSON.parse(body) as GeminiRequest;
      requests.push(request);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`data: ${JSON.stringify(candidate(script(request)))}\n\n`);
      return;
    }
    if (req.method === 'POST' && path.endsWith(':generateContent')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(candidate([{ text: '{"next_speaker":"user","reasoning":"-"}' }])));
      return;
    }
    if (req.method === 'POST' && path.endsWith(':countTokens')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"totalTokens":10}');
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"error":{"message":"not served by the stand-in"}}');
  });
  return { url: server.origin, requests, close: () => server.close() };
}
