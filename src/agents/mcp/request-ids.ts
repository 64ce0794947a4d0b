/**
 * The IDs of the JSON-RPC requests in a message or a batch: what `/mcp`
 * checks against the calls still running, and what the stdio bridge must
 * see answered. Imports nothing, so the bridge stays small.
 */
export function requestIdsOf(json: unknown): (string | number)[] {
  const messages: unknown[] = Array.isArray(json) ? json : [json];
  return messages.flatMap((message) => {
    const { method, id } = (message ?? {}) as { method?: unknown; id?: unknown };
    return typeof method === 'string' && (typeof id === 'string' || typeof id === 'number')
      ? [id]
      : [];
  });
}
