import { describe, expect, it } from 'vitest';
import { bearerSecret, isOwnOrigin, isWebSocketUpgrade } from './auth.js';

describe('bearerSecret', () => {
  it.each([
    [undefined, undefined],
    [null, undefined],
    ['Bearer clr_abc', 'clr_abc'],
    ['bearer clr_abc', 'clr_abc'],
    ['Bearer   clr_abc  ', 'clr_abc'],
    ['Bearer', null],
    ['Bearer ', null],
    ['Basic dXNlcjpwYXNz', null],
    ['Bearer a b', null],
    ['clr_abc', null],
  ])('%s → %s', (header, expected) => {
    expect(bearerSecret(header)).toBe(expected);
  });
});

describe('isOwnOrigin', () => {
  const request = (headers: Record<string, string>, url = 'http://127.0.0.1:7420/api/v1/x') =>
    new Request(url, { method: 'POST', headers });

  it.each([
    ['same origin', { origin: 'http://127.0.0.1:7420' }, true],
    ['another port', { origin: 'http://127.0.0.1:7421' }, false],
    ['another host', { origin: 'http://evil.example' }, false],
    ['another scheme', { origin: 'https://127.0.0.1:7420' }, false],
    ['opaque origin', { origin: 'null' }, false],
    ['no origin, same-origin fetch', { 'sec-fetch-site': 'same-origin' }, true],
    ['no origin, same-site fetch', { 'sec-fetch-site': 'same-site' }, false],
    ['no origin, cross-site fetch', { 'sec-fetch-site': 'cross-site' }, false],
    ['no origin, no fetch metadata', {}, false],
    [
      'origin wins over fetch metadata',
      { origin: 'http://evil.example', 'sec-fetch-site': 'same-origin' },
      false,
    ],
  ])('%s', (_name, headers, expected) => {
    expect(isOwnOrigin(request(headers))).toBe(expected);
  });

  it('accepts a configured public origin, and only that one', () => {
    const trusted = ['https://clarion.example'];
    expect(isOwnOrigin(request({ origin: 'https://clarion.example' }), trusted)).toBe(true);
    expect(isOwnOrigin(request({ origin: 'https://other.example' }), trusted)).toBe(false);
  });
});

describe('isWebSocketUpgrade', () => {
  it('recognizes the upgrade header in any case', () => {
    expect(
      isWebSocketUpgrade(new Request('http://h/', { headers: { upgrade: 'WebSocket' } })),
    ).toBe(true);
    expect(isWebSocketUpgrade(new Request('http://h/'))).toBe(false);
  });
});
