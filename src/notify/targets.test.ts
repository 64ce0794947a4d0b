/** What an admin's allowed-hosts list lets through, and what a channel's target shows. */
import { describe, expect, it } from 'vitest';
import { hostAllowed, targetLabel } from './targets.js';

describe('channel targets', () => {
  it.each([
    ['https://ntfy.sh/topic', [], true],
    ['http://192.168.1.5:8080/x', [], true],
    ['https://ntfy.example.com/t', ['example.com'], true],
    ['https://example.com/t', ['example.com'], true],
    ['https://badexample.com/t', ['example.com'], false],
    ['https://example.com.evil.test/t', ['example.com'], false],
    ['http://127.0.0.1:9/x', ['example.com'], false],
    ['http://[::1]:9/x', ['::1'], true],
    ['not a url', ['example.com'], false],
  ])('%s with %j allowed: %s', (url, allowed, expected) => {
    expect(hostAllowed(url, allowed)).toBe(expected);
  });

  it('shows host and path, never a query, a Slack path or a push endpoint path', () => {
    expect(targetLabel('webhook', { url: 'https://relay.lan/hook?token=s3cret' })).toBe(
      'relay.lan/hook',
    );
    expect(targetLabel('slack', { url: 'https://hooks.slack.com/services/T/B/secret' })).toBe(
      'hooks.slack.com',
    );
    expect(
      targetLabel('web_push', { subscription: { endpoint: 'https://push.example/abc/def' } }),
    ).toBe('push.example');
  });
});
