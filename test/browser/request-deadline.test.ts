/**
 * Every REST request of the web app ends: one without a signal of its own
 * ends at the client's deadline as a network failure, the same "it may or
 * may not have happened" its callers already handle (the composer keeps its
 * draft, a button comes back). A request whose caller bounds it keeps only
 * the caller's bound.
 */
import { describe, expect, it } from 'vitest';
import { request, type FetchLike } from '../../web/src/model/api.js';

/** A connection that died without a word: nothing comes back until the request is aborted. */
function silentNetwork() {
  const seen: (AbortSignal | undefined)[] = [];
  const fetchImpl: FetchLike = (_input, init) => {
    seen.push(init?.signal ?? undefined);
    return new Promise<Response>((_resolve, reject) => {
      init?.signal?.addEventListener('abort', () => {
        reject(new DOMException('The operation was aborted.', 'AbortError'));
      });
    });
  };
  return { fetchImpl, seen };
}

describe('request', () => {
  it('ends a request that never hears back at its deadline, as a network failure', async () => {
    const { fetchImpl } = silentNetwork();
    const result = await request(fetchImpl, '/api/v1/messages', { method: 'POST', body: '{}' }, 20);
    expect(result).toEqual({ ok: false, kind: 'network', error: 'timed out' });
  });

  it('ends a reply whose body never finishes at the deadline too', async () => {
    const fetchImpl: FetchLike = (_input, init) => {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('{"tasks": ['));
          init?.signal?.addEventListener('abort', () => {
            controller.error(new DOMException('The operation was aborted.', 'AbortError'));
          });
        },
      });
      return Promise.resolve(new Response(body, { status: 200 }));
    };
    await expect(request(fetchImpl, '/api/v1/tasks', {}, 20)).resolves.toEqual({
      ok: false,
      kind: 'network',
      error: 'timed out',
    });
  });

  it('keeps the caller’s own signal as the only bound', async () => {
    const { fetchImpl, seen } = silentNetwork();
    const own = new AbortController();
    const result = request(fetchImpl, '/api/v1/user-inputs/r1/respond', { signal: own.signal }, 5);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(seen[0]).toBe(own.signal);
    own.abort();
    await expect(result).resolves.toMatchObject({ ok: false, kind: 'network' });
  });

  it('reads a reply that comes in time as before', async () => {
    const fetchImpl: FetchLike = () =>
      Promise.resolve(Response.json({ tasks: [], next_cursor: null }, { status: 200 }));
    await expect(request(fetchImpl, '/api/v1/tasks', {}, 1_000)).resolves.toEqual({
      ok: true,
      status: 200,
      value: { tasks: [], next_cursor: null },
    });
  });
});
