import { describe, expect, it } from 'vitest';
import { uuidSource } from './ids.js';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('uuidSource', () => {
  it('makes version 7 UUIDs that carry the current millisecond', () => {
    const before = Date.now();
    const id = uuidSource.next();
    const after = Date.now();
    expect(id).toMatch(V7);
    const ms = Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16);
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(after);
  });

  it('sorts every ID after the ones made before it, within one millisecond too', () => {
    const ids = Array.from({ length: 5_000 }, () => uuidSource.next());
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });
});
