import { describe, expect, it } from 'vitest';
import { createUuidSource, uuidSource } from './ids.js';

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

  it('keeps that order while the clock stands still or steps back', () => {
    const times = [1_000, 1_000, 999, 990, 1_000, 1_001, 500];
    const source = createUuidSource(() => times.shift() ?? 0);
    const ids = Array.from({ length: 7 }, () => source.next());
    expect([...ids].sort()).toEqual(ids);
    // The clock's steps back never show: the time part stays at the latest reading.
    const ms = ids.map((id) => Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16));
    expect(ms).toEqual([1_000, 1_000, 1_000, 1_000, 1_000, 1_001, 1_001]);
  });
});
