/**
 * Who may reach Clarion, by network position. Three rules (issue 17):
 * - Only host names Clarion was configured with are answered: a loopback
 *   name, the address it listens on, or `CLARION_PUBLIC_ORIGIN`'s host. A
 *   DNS-rebinding page reaches a loopback server under its own name, which is
 *   none of these, so its requests are refused before any route runs.
 * - `/metrics` and `/debug/vars` need an admin's bearer token, unless the
 *   peer is on this machine and no proxy forwards for someone else.
 * - Listening beyond loopback without an `https://` public origin is worth a
 *   warning at start: cookies and tokens would cross the network in clear.
 */
import type { IncomingMessage } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';
import { errorResponse } from './errors.js';

/** The names a browser on this machine uses for it; always answered. */
const LOOPBACK_NAMES: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

/** `value` as a URL hostname (lowercase, IPv6 in brackets); `undefined` when it is not one. */
export function hostnameOf(value: string): string | undefined {
  const bare = value.trim();
  if (bare === '') return undefined;
  const authority =
    bare.includes(':') && !bare.startsWith('[') && !/^[^:]*:\d*$/.test(bare) ? `[${bare}]` : bare;
  try {
    const url = new URL(`http://${authority}`);
    const plain = url.username === '' && url.password === '' && url.pathname === '/';
    if (!plain || url.search !== '' || url.hash !== '') return undefined;
    return url.hostname;
  } catch {
    return undefined;
  }
}

/**
 * Refuses (403 `foreign_host`) a request whose `Host` names none of `allowed`.
 * Without a `Host` header (`app.request()` in tests) the URL's host counts.
 * Mount it before every route that must not be read across a rebinding.
 */
export function createHostGuard(allowed: readonly string[]): MiddlewareHandler {
  const names = new Set(allowed);
  return async (c, next) => {
    const name = hostnameOf(c.req.header('host') ?? new URL(c.req.url).host);
    if (name === undefined || !names.has(name)) return errorResponse(c, 'foreign_host');
    await next();
    return;
  };
}

/** Every hostname the server answers to, given what it listens on and its public origin. */
export function allowedHostnames(bindHost: string, publicOrigin?: string): string[] {
  const names = new Set(LOOPBACK_NAMES);
  const bound = hostnameOf(bindHost);
  if (bound !== undefined) names.add(bound);
  if (publicOrigin !== undefined) names.add(new URL(publicOrigin).hostname);
  return [...names];
}

/** Whether a listen address keeps Clarion on this machine. */
export function isLoopbackHost(host: string): boolean {
  const name = hostnameOf(host);
  if (name === undefined) return false;
  return name === 'localhost' || name === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(name);
}

/** Whether a socket's remote address is this machine (IPv4-mapped IPv6 included). */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
  return address === '::1' || /^127\.\d+\.\d+\.\d+$/.test(v4);
}

/** The start-up warning for a listen address reachable from elsewhere without TLS in front. */
export function exposureWarning(host: string, publicOrigin?: string): string | undefined {
  if (isLoopbackHost(host) || publicOrigin?.startsWith('https://') === true) return undefined;
  return (
    `listening on ${host}, reachable from other machines, without an https:// ` +
    'CLARION_PUBLIC_ORIGIN: sign-in links, session cookies and tokens cross the network ' +
    'in clear text. Put a TLS proxy in front and set CLARION_PUBLIC_ORIGIN=https://…, ' +
    'or listen on 127.0.0.1'
  );
}

/** The peer address as `@hono/node-server` exposes the socket; `undefined` elsewhere (`app.request`). */
export function nodePeerAddress(c: Context): string | undefined {
  const env = c.env as { incoming?: IncomingMessage } | undefined;
  return env?.incoming?.socket.remoteAddress;
}

/** Set by a proxy that forwards someone else's request: the socket's peer is then not the caller. */
export function isForwarded(request: Request): boolean {
  return request.headers.has('forwarded') || request.headers.has('x-forwarded-for');
}
