/**
 * The page's one fetch (`web/src/model/page-fetch.ts`): unbound it sends
 * requests as they are; bound to the person the page signed in as, every
 * request names them, and only a `session_changed` refusal tells the page
 * whom the browser signs in now, once per refused request.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { bindPage, pageFetch } from '../../web/src/model/page-fetch.js';
import { SIGNED_IN_AS_HEADER } from '../../src/wire/index.js';

describe('the page’s fetch', () => {
  const sent: { url: string; headers: Headers }[] = [];
  let reply: () => Response;

  beforeEach(() => {
    sent.length = 0;
    reply = () => Response.json({ ok: true });
    vi.stubGlobal('fetch', (url: string, init: RequestInit = {}) => {
      sent.push({ url, headers: new Headers(init.headers) });
      return Promise.resolve(reply());
    });
  });

  afterEach(() => {
    bindPage(undefined);
    vi.unstubAllGlobals();
  });

  it('names nobody before the sign-in check, then the page’s person on every request', async () => {
    await pageFetch('/api/v1/me');
    bindPage({ userId: 'ana-id', changed: () => undefined });
    await pageFetch('/api/v1/pending', { headers: { accept: 'application/json' } });
    expect(sent.map((request) => request.headers.get(SIGNED_IN_AS_HEADER))).toEqual([
      null,
      'ana-id',
    ]);
    // The caller's own headers stay.
    expect(sent[1]?.headers.get('accept')).toBe('application/json');
  });

  it('tells the page whom the browser signs in now on session_changed, and on nothing else', async () => {
    const changes: (string | undefined)[] = [];
    bindPage({ userId: 'ana-id', changed: (name) => changes.push(name) });

    reply = () =>
      Response.json(
        {
          code: 'session_changed',
          error: 'signed in as someone else',
          details: { signed_in_as: { id: 'bo-id', name: 'Bo' } },
        },
        { status: 409 },
      );
    const refused = await pageFetch('/api/v1/clarification/p/respond', { method: 'POST' });
    // The caller still reads the refusal itself.
    expect(refused.status).toBe(409);
    await expect(refused.json()).resolves.toMatchObject({ code: 'session_changed' });

    reply = () => Response.json({ code: 'conflict', error: 'busy' }, { status: 409 });
    await pageFetch('/api/v1/sessions/s/messages', { method: 'POST' });
    reply = () => new Response('not json', { status: 409 });
    await pageFetch('/api/v1/sessions/s/messages', { method: 'POST' });
    expect(changes).toEqual(['Bo']);
  });
});
