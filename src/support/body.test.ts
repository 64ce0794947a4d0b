import { describe, expect, it } from 'vitest';
import { declaredLength } from './body.js';

describe('declaredLength', () => {
  const length = (headers: Record<string, string>) => declaredLength(new Headers(headers));

  it('trusts a Content-Length of digits', () => {
    expect(length({ 'content-length': '0' })).toBe(0);
    expect(length({ 'content-length': ' 262144 ' })).toBe(262_144);
  });

  it('declares nothing without one, or when chunked encoding overrides it', () => {
    expect(length({})).toBeUndefined();
    expect(length({ 'content-length': '12', 'transfer-encoding': 'chunked' })).toBeUndefined();
  });

  it('calls anything but digits malformed', () => {
    for (const value of ['-1', '1e3', '12, 12', 'ten', '']) {
      expect(length({ 'content-length': value })).toBe('malformed');
    }
  });
});
