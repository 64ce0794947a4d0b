/**
 * How `/mcp` reads a POST body: as strict UTF-8, before the SDK's transport
 * sees it. The transport decodes leniently, so broken bytes would reach a
 * tool as U+FFFD and be stored as if the agent had sent them; here they are
 * refused with 400 and a JSON-RPC parse error whose data is the catalogue's
 * `invalid_text` body. Everything else about the body (its JSON, its size)
 * stays the transport's to judge.
 */
import { readBodyAtMost } from '../../support/index.js';
import { decodeUtf8, errorBodyOf, failure, OUTCOMES } from '../../wire/index.js';

/** The request with its body checked and buffered, or the reply refusing it. */
export async function strictUtf8Body(
  request: Request,
  maxBytes: number,
): Promise<Request | Response> {
  if (request.method !== 'POST' || !request.body) return request;
  const declared = Number(request.headers.get('content-length'));
  // The transport refuses an oversized declared body without reading it.
  if (declared > maxBytes) return request;
  const bytes = await readBodyAtMost(request.body, maxBytes);
  if (bytes === 'too_large') {
    // The transport's own reply for a body over its limit.
    return jsonRpcError(
      413,
      -32000,
      `Payload Too Large: Request body must not exceed ${maxBytes} bytes`,
    );
  }
  if (decodeUtf8(bytes) === undefined) {
    const refused = failure('invalid_text', 'request body is not valid UTF-8');
    return jsonRpcError(
      OUTCOMES.invalid_text.status,
      -32700,
      'Parse error: request body is not valid UTF-8',
      errorBodyOf(refused),
    );
  }
  return new Request(request, { body: bytes });
}

function jsonRpcError(status: number, code: number, message: string, data?: unknown): Response {
  return Response.json(
    { jsonrpc: '2.0', error: { code, message, ...(data === undefined ? {} : { data }) }, id: null },
    { status },
  );
}
