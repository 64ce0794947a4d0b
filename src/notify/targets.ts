/**
 * Where a channel sends, for display and for the admin's restrictions.
 *
 * - `CLARION_NOTIFY_ALLOWED_HOSTS`, when set, is the only hosts any channel
 *   may name (`hostAllowed`).
 * - Loopback, link-local and private addresses (`isInternalAddress`) serve a
 *   self-hosted ntfy or relay beside Clarion, but they are also the services
 *   no person outside the machine should reach through it. So a channel
 *   reaches them (`reach: 'any'`) only when its owner is an admin or the
 *   admin listed the hosts channels may name; any other channel's reach is
 *   `public`, judged on the addresses its host resolves to when it is sent
 *   (`guarded-post.ts`), so a public name that resolves to 127.0.0.1 is
 *   refused too.
 */
import { BlockList, isIP } from 'node:net';
import type { ChannelKind } from '../wire/index.js';

/** Which addresses a channel's sends may connect to. */
export type Reach = 'any' | 'public';

/** What a channel owned by someone may reach, under the admin's allowed hosts. */
export function channelReach(ownerIsAdmin: boolean, allowedHosts: readonly string[]): Reach {
  // A listed host is one the admin named, private or not; `hostAllowed` refuses the rest.
  return ownerIsAdmin || allowedHosts.length > 0 ? 'any' : 'public';
}

// Two lists: one BlockList would match every IPv4 address against the IPv4-mapped IPv6 range.
const INTERNAL_V4 = new BlockList();
const INTERNAL_V6 = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network"; 0.0.0.0 reaches the machine itself
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata services
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  INTERNAL_V4.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['::ffff:0:0', 96], // IPv4-mapped: whatever IPv4 address it hides
  ['64:ff9b::', 96], // NAT64: likewise
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  INTERNAL_V6.addSubnet(network, prefix, 'ipv6');
}

/** Whether `address` (an IP address, as DNS or a URL gives it) is loopback, link-local or private. */
export function isInternalAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 0) return false;
  return family === 4 ? INTERNAL_V4.check(bare, 'ipv4') : INTERNAL_V6.check(bare, 'ipv6');
}

/** The URL a channel POSTs to: its own for ntfy, webhooks and Slack, the push service's for Web Push. */
export function channelUrl(kind: ChannelKind, config: Readonly<Record<string, unknown>>): string {
  if (kind === 'web_push') {
    const subscription = config.subscription as { endpoint?: unknown } | undefined;
    return typeof subscription?.endpoint === 'string' ? subscription.endpoint : '';
  }
  return typeof config.url === 'string' ? config.url : '';
}

/**
 * Whether `url`'s host is one of `allowed` or under one of them
 * (`example.com` allows `ntfy.example.com`); an empty list allows every host.
 */
export function hostAllowed(url: string, allowed: readonly string[]): boolean {
  if (allowed.length === 0) return true;
  if (!URL.canParse(url)) return false;
  const host = new URL(url).hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return allowed.some((entry) => {
    const suffix = entry.toLowerCase().replace(/^\.+/, '');
    return host === suffix || host.endsWith(`.${suffix}`);
  });
}

/**
 * What the settings page shows as a channel's target, without secrets: a
 * webhook's or ntfy topic's host and path (never its query), only the host
 * of a Slack URL (its path is the secret) and of a push service.
 */
export function targetLabel(kind: ChannelKind, config: Readonly<Record<string, unknown>>): string {
  const url = channelUrl(kind, config);
  if (!URL.canParse(url)) return '';
  const parsed = new URL(url);
  if (kind === 'slack' || kind === 'web_push') return parsed.host;
  return `${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
}
