/**
 * One POST to a channel's target that connects only where the channel may
 * reach (`targets.ts`). For a `public` channel the addresses are judged as
 * the connection is made: an IP literal before anything is sent, a name in
 * the socket's own DNS lookup. Judging them in a lookup of our own before
 * `fetch` would leave a window for a name that answers a public address
 * first and 127.0.0.1 the second time; here the address judged is the
 * address connected to. Every name, whatever the reach, is looked up through
 * one process-wide gate (`lookup-gate.ts`), so a resolver that hangs holds
 * only some of libuv's threads.
 *
 * No connection is pooled: a socket another channel opened to a name (an
 * admin's, to a private address) must not carry a `public` channel's send.
 * The reply's body is never read: only its status and `Retry-After` matter.
 */
import type { LookupAddress } from 'node:dns';
import { request as httpRequest, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { NOTIFY_DNS_LOOKUPS_MAX } from '../tunables.js';
import { lookupGate, type LookupGate, type LookupHints } from './lookup-gate.js';
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

/** Every send's and every check's lookups, in one process-wide line (`lookup-gate.ts`). */
export const channelLookups = lookupGate(NOTIFY_DNS_LOOKUPS_MAX);

/**
 * The socket's lookup, through the gate; for a `public` channel every
 * address the name has must be public.
 */
function socketLookup(reach: Reach, signal: AbortSignal, lookups: LookupGate): LookupFunction {
  return ((
    hostname: string,
    options: LookupHints & { all?: boolean },
    callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    lookups.lookup(hostname, { family: options.family, hints: options.hints }, signal).then(
      (addresses) => {
        const first = addresses[0];
        // One internal address refuses them all: the socket may try each in turn.
        if (
          reach === 'public' &&
          (first === undefined || addresses.some((entry) => isInternalAddress(entry.address)))
        ) {
          callback(new InternalTargetError(), []);
        } else if (options.all === true) callback(null, addresses);
        else if (first === undefined) callback(new Error(`no address for ${hostname}`), []);
        else callback(null, first.address, first.family);
      },
      (error: unknown) => {
        callback(error instanceof Error ? error : new Error(String(error)), []);
      },
    );
  }) as unknown as LookupFunction;
}

export function guardedPost(
  url: string,
  headers: Readonly<Record<string, string>>,
  body: Uint8Array | string | null,
  signal: AbortSignal,
  reach: Reach,
  lookups: LookupGate = channelLookups,
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
      lookup: socketLookup(reach, signal, lookups),
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
export async function resolvesInternal(
  url: string,
  timeoutMs: number,
  lookups: LookupGate = channelLookups,
): Promise<boolean> {
  if (!URL.canParse(url)) return false;
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) return isInternalAddress(host);
  const addresses = await lookups
    .lookup(host, {}, AbortSignal.timeout(timeoutMs))
    .catch((): LookupAddress[] => []);
  return addresses.some((entry) => isInternalAddress(entry.address));
}
