import { describe, expect, it } from 'vitest';
import { formatTimestamp, monotonicTimestamps, parseTimestamp, systemClock } from './clock.js';

describe('row versions', () => {
  it('formats nanoseconds as RFC 3339 with nine fractional digits', () => {
    const ns = BigInt(Date.parse('2026-11-30T04:47:24.123Z')) * 1_000_000n + 456_789n;
    expect(formatTimestamp(ns)).toBe('2026-11-30T04:47:24.123456789Z');
    expect(formatTimestamp(0n)).toBe('1970-01-01T00:00:00.000000000Z');
  });

  it('formats each second right when calls move between seconds, back included', () => {
    const second = (iso: string) => BigInt(Date.parse(iso)) * 1_000_000n;
    const early = second('2026-11-30T23:59:59Z') + 999_999_999n;
    const late = second('2026-12-01T00:00:00Z');
    expect(formatTimestamp(early)).toBe('2026-11-30T23:59:59.999999999Z');
    expect(formatTimestamp(late)).toBe('2026-12-01T00:00:00.000000000Z');
    expect(formatTimestamp(late + 1n)).toBe('2026-12-01T00:00:00.000000001Z');
    expect(formatTimestamp(early)).toBe('2026-11-30T23:59:59.999999999Z');
  });

  it('parses what it formats and refuses anything else', () => {
    const ns = 1_796_014_474_551_000_123n;
    expect(parseTimestamp(formatTimestamp(ns))).toBe(ns);
    expect(parseTimestamp('2026-11-30T04:47:24.123Z')).toBeUndefined();
    expect(parseTimestamp('2026-13-45T04:47:24.123456789Z')).toBeUndefined();
    expect(parseTimestamp('')).toBeUndefined();
  });

  it('never repeats or goes back, even when the source does', () => {
    const readings = [5n, 5n, 3n, 9n, 9n];
    const next = monotonicTimestamps(() => readings.shift() ?? 0n);
    const versions = Array.from({ length: 5 }, () => parseTimestamp(next()));
    expect(versions).toEqual([5n, 6n, 7n, 9n, 10n]);
  });

  it('orders as strings in time order', () => {
    const clock = systemClock();
    const versions = Array.from({ length: 1000 }, () => clock.timestamp());
    expect([...versions].sort()).toEqual(versions);
    expect(new Set(versions).size).toBe(versions.length);
    const versionMs = Number((parseTimestamp(clock.timestamp()) ?? 0n) / 1_000_000n);
    expect(Math.abs(versionMs - Date.now())).toBeLessThan(1000);
  });
});
