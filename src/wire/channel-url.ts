/**
 * The rules a channel's URL must meet (zod-free, so the web app checks a
 * URL before sending it and says what is wrong in its own language; the
 * wire's `newChannelBody` refuses by the same rules, in English).
 */
import { MAX_URL_CHARS } from './limits.js';

export const CHANNEL_URL_PROBLEMS = [
  'too_long',
  'not_http',
  'has_credentials',
  'no_ntfy_topic',
] as const;
export type ChannelUrlProblem = (typeof CHANNEL_URL_PROBLEMS)[number];

/**
 * Why the server refused a channel whose URL is well formed, for a page to
 * word: the failure's code (`internal_target`, `channel_exists`), the
 * `code` of its URL's issue (`host_not_allowed`), or `details.reason` of a
 * `conflict` (`channel_limit`, with `details.limit`). The messages are English.
 */
export const CHANNEL_REFUSALS = [
  'internal_target',
  'host_not_allowed',
  'channel_exists',
  'channel_limit',
] as const;
export type ChannelRefusal = (typeof CHANNEL_REFUSALS)[number];

export function isHttpUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
}

/** Whether a URL carries a username or password; false for one that cannot be parsed. */
export function urlHasCredentials(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return url.username !== '' || url.password !== '';
}

/** ntfy's own rule for a topic name; any other is refused at every publish. */
const NTFY_TOPIC = /^[-_A-Za-z0-9]{1,64}$/;

/**
 * An ntfy topic URL ends in its topic (the last path segment); a query
 * (`?auth=…`) is kept and sent with every publish.
 */
export function hasNtfyTopic(value: string): boolean {
  if (!URL.canParse(value)) return true;
  const segments = new URL(value).pathname.split('/').filter((segment) => segment !== '');
  return NTFY_TOPIC.test(segments.at(-1) ?? '');
}

/** The first rule a channel's URL (as typed; trimmed here as the wire trims it) breaks. */
export function channelUrlProblem(
  kind: 'ntfy' | 'webhook' | 'slack',
  typed: string,
): ChannelUrlProblem | undefined {
  const url = typed.trim();
  if (url.length > MAX_URL_CHARS) return 'too_long';
  if (!isHttpUrl(url)) return 'not_http';
  if (urlHasCredentials(url)) return 'has_credentials';
  if (kind === 'ntfy' && !hasNtfyTopic(url)) return 'no_ntfy_topic';
  return undefined;
}
