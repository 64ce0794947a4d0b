/**
 * Reading a request body with a byte bound: a body that grows past the bound
 * is cancelled there, never buffered whole, whatever `Content-Length` said.
 */
export async function readBodyAtMost(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
): Promise<Uint8Array | 'too_large'> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      return 'too_large';
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/**
 * The body length a request declares, where it can be trusted: the HTTP
 * parser holds the sender to a `Content-Length`, unless chunked transfer
 * encoding overrides it. `undefined` when none is declared.
 */
export function declaredLength(headers: Headers): number | 'malformed' | undefined {
  const declared = headers.get('content-length');
  if (declared === null || headers.has('transfer-encoding')) return undefined;
  const digits = declared.trim();
  return /^\d+$/.test(digits) ? Number(digits) : 'malformed';
}
