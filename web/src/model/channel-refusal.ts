/**
 * Why the server refused to add a channel whose URL is well formed, as one
 * of `CHANNEL_REFUSALS`, so the page says it in its own language instead of
 * the server's English message and issue; `undefined` for any other failure.
 */
import { CHANNEL_REFUSALS, type ChannelRefusal } from '../../../src/wire/channel-url.js';
import type { ApiFailure } from './api.js';

function isRefusal(value: unknown): value is ChannelRefusal {
  return (CHANNEL_REFUSALS as readonly unknown[]).includes(value);
}

export function channelRefusalOf(failure: ApiFailure): ChannelRefusal | undefined {
  if (failure.kind !== 'http') return undefined;
  if (failure.code === 'channel_exists' || failure.code === 'internal_target') return failure.code;
  const details: unknown = failure.details;
  if (failure.code === 'conflict' && typeof details === 'object' && details !== null) {
    const { reason } = details as { reason?: unknown };
    return reason === 'channel_limit' ? reason : undefined;
  }
  if (failure.code === 'invalid_request' && Array.isArray(details)) {
    const coded = (details as unknown[]).map((issue) =>
      typeof issue === 'object' && issue !== null ? (issue as { code?: unknown }).code : undefined,
    );
    return coded.length > 0 && coded.every(isRefusal) ? coded[0] : undefined;
  }
  return undefined;
}
