/**
 * One POST to a channel's target that connects only where the channel may
 * reach (`targets.ts`). For a `public` channel the addresses are judged as
 * the connection is made: an IP literal before anything is sent, a name in
 * the socket's own DNS lookup. Judging them in a lookup of our own before
 * `fetch` would leave a window for a name that answers a public address
 * first and 127.0.0.1 the second time; here the address judged is the
 * address connected to.
 *
 * No connection is pooled: a socket another channel opened to a name (an
 * admin's, to a private address) must not carry a `public` channel's send.
 * The reply's body is never read: only its status and `Retry-After` matter.
 */
import { lookup as dnsLookup, promises as dnsPromises, type LookupAddress } from 'node:dns';
import { request as httpRequest, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isInternalAddress, type Reach } from './targets.js';

export interface PostReply {
  readonly status: number;
  readonly retryAfter: string | null;
}

/** A `public` channel's target is, or resolves to, an address it may not reach. */
export class InternalTargetError extends Error {
  constructor() {
    super('the target is a loopback, link-local or private address');
    this.name = 'InternalTargetError';
  }
}

/** What a refused send says: the rule, and who can change it. */
export const INTERNAL_TARGET_REFUSED =
  'the target is a loopback, link-local or private address, which only an admin’s channels may reach unless CLARION_NOTIFY_ALLOWED_HOSTS names it';

/** The socket's lookup for a `public` channel: every address the name has must be public. */
const publicLookup = ((
  hostname: string,
  options: { all?: boolean; family?: number },
  callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void,
) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) {
      callback(error, []);
      return;
    }
    // One internal address refuses them all: the socket may try each in turn.
    const first = addresses[0];
    if (first === undefined || addresses.some((entry) => isInternalAddress(entry.address))) {
      callback(new InternalTargetError(), []);
      return;
    }
    if (options.all === true) callback(null, addresses);
    else callback(null, first.address, first.family);
  });
}) as unknown as LookupFunction;

export function guardedPost(
  url: string,
  headers: Readonly<Record<string, string>>,
  body: Uint8Array | string | null,
  signal: AbortSignal,
  reach: Reach,
): Promise<PostReply> {
  const target = new URL(url);
  const host = target.hostname.replace(/^\[|\]$/g, '');
  if (reach === 'public' && isIP(host) !== 0 && isInternalAddress(host)) {
    return Promise.reject(new InternalTargetError());
  }
  const payload = body === null ? Buffer.alloc(0) : Buffer.from(body);
  const outgoing: OutgoingHttpHeaders = { ...headers, 'content-length': payload.byteLength };
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<PostReply>((resolve, reject) => {
    const request = send(target, {
      method: 'POST',
      headers: outgoing,
      agent: false,
      signal,
      ...(reach === 'public' ? { lookup: publicLookup } : {}),
    });
    // `on`, not `once`: a second error (an abort after a reset) must not go unhandled.
    request.on('error', reject);
    request.once('response', (response) => {
      const retryAfter = response.headers['retry-after'];
      resolve({ status: response.statusCode ?? 0, retryAfter: retryAfter ?? null });
      // Unread, the body would hold the socket; read, someone might keep it.
      response.destroy();
    });
    request.end(payload);
  });
}

/**
 * Whether `url`'s host is, or resolves to, an address a `public` channel may
 * not reach: the clear refusal when such a channel is added. A name that does
 * not resolve within `timeoutMs`, or not at all, passes here; every send
 * judges it again.
 */
export async function resolvesInternal(url: string, timeoutMs: number): Promise<boolean> {
  if (!URL.canParse(url)) return false;
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) return isInternalAddress(host);
  const bound = AbortSignal.timeout(timeoutMs);
  const unanswered = new Promise<LookupAddress[]>((resolve) => {
    bound.addEventListener(
      'abort',
      () => {
        resolve([]);
      },
      { once: true },
    );
  });
  const addresses = await Promise.race([
    dnsPromises.lookup(host, { all: true }).catch((): LookupAddress[] => []),
    unanswered,
  ]);
  return addresses.some((entry) => isInternalAddress(entry.address));
}
