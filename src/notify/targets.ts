/**
 * Where a channel sends, for display and for the admin's restriction
 * (`CLARION_NOTIFY_ALLOWED_HOSTS`). Loopback and private addresses are
 * allowed unless the admin lists hosts: a self-hosted server talks to its own
 * LAN (ntfy, a relay).
 */
import type { ChannelKind } from '../wire/index.js';

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
