/** What an admin's allowed-hosts list lets through, and what a channel's target shows. */
import { describe, expect, it } from 'vitest';
import { channelReach, hostAllowed, isInternalAddress, targetLabel } from './targets.js';

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

  it.each([
    ['127.0.0.1', true],
    ['127.8.9.10', true],
    ['10.1.2.3', true],
    ['172.16.0.1', true],
    ['172.31.255.255', true],
    ['192.168.1.5', true],
    ['169.254.169.254', true],
    ['100.64.0.1', true],
    ['0.0.0.0', true],
    ['::1', true],
    ['[::1]', true],
    ['::', true],
    ['fe80::1', true],
    ['fd12:3456::1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:7f00:1', true],
    ['::ffff:8.8.8.8', true],
    ['8.8.8.8', false],
    ['172.32.0.1', false],
    ['2606:4700:4700::1111', false],
    ['localhost', false],
  ])('calls %s internal: %s', (address, expected) => {
    expect(isInternalAddress(address)).toBe(expected);
  });

  it('lets an admin’s channels, and anyone’s under an allowed-hosts list, reach internal addresses', () => {
    expect(channelReach(true, [])).toBe('any');
    expect(channelReach(false, ['ntfy.lan'])).toBe('any');
    expect(channelReach(false, [])).toBe('public');
  });
});
