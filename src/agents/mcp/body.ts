/**
 * How `/mcp` reads a POST body: once, as strict UTF-8, before the SDK's
 * transport sees it. The transport decodes leniently, so broken bytes would
 * reach a tool as U+FFFD and be stored as if the agent had sent them; here
 * they are refused with 400 and a JSON-RPC parse error whose data is the
 * catalogue's `invalid_text` body. The JSON read here is handed to the
 * transport as its parsed body, so the request is neither copied nor read
 * twice. Whatever this reader cannot judge (another media type, text that is
 * not JSON) goes to the transport as it came, for its own reply.
 */
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { declaredLength, readBodyAtMost } from '../../support/index.js';
import { decodeUtf8, errorBodyOf, failure, isJsonMediaType, OUTCOMES } from '../../wire/index.js';

/** The request for the transport, and its JSON when it was read here. */
export interface McpRequestBody {
  readonly request: Request;
  /** For the transport's `parsedBody`; absent when the transport reads the body itself. */
  readonly json?: unknown;
}

/** The request with its body checked and parsed, or the reply refusing it. */
export async function readMcpBody(
  request: Request,
  maxBytes: number,
): Promise<McpRequestBody | Response> {
  // Not `request.body`: on Hono's Node adapter that getter alone builds a web stream.
  if (request.method !== 'POST') return { request };
  if (!isJsonMediaType(request.headers.get('content-type'))) return { request };
  const bytes = await readBounded(request, maxBytes);
  if (bytes === 'too_large') {
    // The transport's own reply for a body over its limit.
    return jsonRpcError(
      OUTCOMES.payload_too_large.status,
      -32000,
      `Payload Too Large: Request body must not exceed ${maxBytes} bytes`,
    );
  }
  const text = decodeUtf8(bytes);
  if (text === undefined) {
    const refused = failure('invalid_text', 'request body is not valid UTF-8');
    return jsonRpcError(
      OUTCOMES.invalid_text.status,
      -32700,
      'Parse error: request body is not valid UTF-8',
      errorBodyOf(refused),
    );
  }
  try {
    return { request, json: JSON.parse(text) as unknown };
  } catch {
    return { request: new Request(request, { body: bytes }) };
  }
}

/**
 * A declared length within the bound is read in one go (the HTTP parser never
 * delivers more than was declared); any other body is read as a stream and
 * cancelled once it passes the bound.
 */
async function readBounded(request: Request, maxBytes: number): Promise<Uint8Array | 'too_large'> {
  const length = declaredLength(request.headers);
  if (typeof length === 'number') {
    if (length > maxBytes) return 'too_large';
    return new Uint8Array(await request.arrayBuffer());
  }
  if (!request.body) return new Uint8Array();
  return readBodyAtMost(request.body, maxBytes);
}

function jsonRpcError(status: number, code: number, message: string, data?: unknown): Response {
  return Response.json(
    { jsonrpc: '2.0', error: { code, message, ...(data === undefined ? {} : { data }) }, id: null },
    { status },
  );
}

/** Whether a JSON-RPC message, or any message of a batch, calls the tool `name`. */
export function callsTool(json: unknown, name: string): boolean {
  const messages: unknown[] = Array.isArray(json) ? json : [json];
  return messages.some((message) => {
    const { method, params } = (message ?? {}) as { method?: unknown; params?: unknown };
    return method === 'tools/call' && (params as { name?: unknown } | null)?.name === name;
  });
}

/** Whether a body read here is one `initialize` (alone, or a batch of it alone): all that opens a session. */
export function initializes(json: unknown): boolean {
  const messages: unknown[] = Array.isArray(json) ? json : [json];
  return messages.length === 1 && isInitializeRequest(messages[0]);
}

/**
 * Whether a request accepts both replies a session may give: the one check
 * the SDK's transport makes of an `initialize` besides its body, which
 * refuses it (406) otherwise.
 */
export function acceptsStreams(request: Request): boolean {
  const accept = request.headers.get('accept') ?? '';
  return accept.includes('application/json') && accept.includes('text/event-stream');
}

/**
 * Whether an `initialize` body's `params.capabilities` nest deeper than
 * `limit` objects or arrays. Walked without recursion: a body of nothing but
 * nesting fits the body bound many thousand levels deep.
 */
export function capabilitiesNestDeeper(json: unknown, limit: number): boolean {
  const message: unknown = Array.isArray(json) ? json[0] : json;
  if (!isInitializeRequest(message)) return false;
  const stack: { value: unknown; depth: number }[] = [
    { value: message.params.capabilities, depth: 1 },
  ];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { value, depth } = next;
    if (typeof value !== 'object' || value === null) continue;
    if (depth > limit) return true;
    for (const child of Object.values(value)) stack.push({ value: child, depth: depth + 1 });
  }
  return false;
}
