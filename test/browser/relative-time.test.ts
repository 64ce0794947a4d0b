/** Ages as people read them, from the server's nine-digit timestamps. */
import { describe, expect, it } from 'vitest';
import { dateTimeLabel, relativeLabel, timestampMs } from '../../web/src/model/relative-time.js';

const AT = '2026-12-01T10:00:00.123456789Z';
const base = Date.parse('2026-12-01T10:00:00.123Z');

describe('relativeLabel', () => {
  it('reads nine fractional digits to the millisecond', () => {
    expect(timestampMs(AT)).toBe(base);
  });

  it('says now, minutes, hours and days in the person’s language', () => {
    expect(relativeLabel(AT, base + 10_000, 'en')).toBe('now');
    expect(relativeLabel(AT, base + 5 * 60_000, 'en')).toBe('5 minutes ago');
    expect(relativeLabel(AT, base + 3 * 3_600_000, 'en')).toBe('3 hours ago');
    expect(relativeLabel(AT, base + 26 * 3_600_000, 'en')).toBe('yesterday');
    expect(relativeLabel(AT, base + 5 * 60_000, 'de')).toBe('vor 5 Minuten');
    expect(relativeLabel(AT, base + 5 * 60_000, 'ja')).toBe('5 分前');
  });

  it('says when as a date and a time of day, in the person’s language', () => {
    const when = { dateStyle: 'medium', timeStyle: 'short' } as const;
    expect(dateTimeLabel(AT, 'en')).toBe(new Date(base).toLocaleString('en', when));
    expect(dateTimeLabel(AT, 'de')).toBe(new Date(base).toLocaleString('de', when));
    expect(dateTimeLabel(AT, 'ja')).toBe(new Date(base).toLocaleString('ja', when));
  });
});
