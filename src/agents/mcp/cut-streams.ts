/**
 * The stdio bridge's view of the event streams its POSTs get back: which
 * requests a stream carried, and when it ended. `/mcp` streams cannot be
 * resumed, so a request whose stream ended without its result never gets
 * one; the bridge answers it itself (`stdio-bridge.ts`).
 */
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import { requestIdsOf } from './request-ids.js';

/**
 * `fetch` for the HTTP transport that tells `ended` which requests a POST
 * carried once its event stream ends, however it ends. By then the SDK has
 * read every event the stream held: a result it carried reached
 * `onmessage` first, so only the requests still unanswered were cut off.
 */
export function answeringCutStreams(ended: (ids: RequestId[]) => void): FetchLike {
  return async (url, init) => {
    const response = await fetch(url, init);
    const ids = postedRequestIds(init?.body);
    const type = response.headers.get('content-type') ?? '';
    if (ids.length === 0 || !response.ok || !response.body || !type.includes('text/event-stream')) {
      return response;
    }
    // After the SDK's reads of what came before the end, which all run as microtasks.
    const cut = () => setTimeout(ended, 0, ids);
    const reader: ReadableStreamDefaultReader<Uint8Array> = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const chunk = await reader.read();
          if (chunk.done) {
            controller.close();
            cut();
          } else controller.enqueue(chunk.value);
        } catch (error) {
          controller.error(error);
          cut();
        }
      },
      cancel(reason) {
        cut();
        return reader.cancel(reason);
      },
    });
    const { status, statusText, headers } = response;
    return new Response(body, { status, statusText, headers });
  };
}

/** The IDs of the JSON-RPC requests a POST body carries. */
function postedRequestIds(body: unknown): RequestId[] {
  if (typeof body !== 'string') return [];
  try {
    return requestIdsOf(JSON.parse(body));
  } catch {
    return [];
  }
}
