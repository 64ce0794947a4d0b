/** The server's refusals of a channel, read as codes the settings page words in its language. */
import { describe, expect, it } from 'vitest';
import { channelRefusalOf } from '../../web/src/model/channel-refusal.js';

const http = (code: string, details?: unknown) =>
  ({ ok: false, kind: 'http', status: 400, code, error: 'English', details }) as const;

describe('channelRefusalOf', () => {
  it('reads each refusal the server gives a well-formed URL', () => {
    expect(channelRefusalOf(http('channel_exists'))).toBe('channel_exists');
    expect(channelRefusalOf(http('internal_target', [{ path: 'url', message: 'x' }]))).toBe(
      'internal_target',
    );
    expect(
      channelRefusalOf(
        http('invalid_request', [{ path: 'url', code: 'host_not_allowed', message: 'x' }]),
      ),
    ).toBe('host_not_allowed');
    expect(channelRefusalOf(http('conflict', { reason: 'channel_limit', limit: 20 }))).toBe(
      'channel_limit',
    );
  });

  it('leaves every other failure to the general wording', () => {
    expect(channelRefusalOf(http('invalid_request', [{ path: 'name', message: 'x' }]))).toBe(
      undefined,
    );
    expect(channelRefusalOf(http('conflict'))).toBe(undefined);
    expect(channelRefusalOf({ ok: false, kind: 'network', error: 'Failed to fetch' })).toBe(
      undefined,
    );
  });
});
