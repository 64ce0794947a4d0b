/**
 * "Just now", "5 minutes ago", "yesterday": how old something is, in the
 * person's language, from a server timestamp. Pure; the caller passes `now`.
 * And "Dec 8, 2026, 3:53 PM": when something stops working, the one way
 * every page says it.
 */

/** Milliseconds since the epoch of an RFC 3339 timestamp with any number of fractional digits. */
export function timestampMs(at: string): number {
  // Nine fractional digits are the server's row version; Date reads at most three portably.
  return Date.parse(at.replace(/(\.\d{3})\d+/, '$1'));
}

const STEPS: readonly [Intl.RelativeTimeFormatUnit, number][] = [
  ['second', 60],
  ['minute', 60],
  ['hour', 24],
  ['day', 7],
  ['week', 4.35],
  ['month', 12],
  ['year', Number.POSITIVE_INFINITY],
];

export function relativeLabel(at: string, now: number, language: string): string {
  const format = new Intl.RelativeTimeFormat(language, { numeric: 'auto' });
  let value = (timestampMs(at) - now) / 1000;
  if (Math.abs(value) < 45) return format.format(0, 'second');
  for (const [unit, size] of STEPS) {
    if (Math.abs(value) < size) return format.format(Math.round(value), unit);
    value /= size;
  }
  return format.format(Math.round(value), 'year');
}

/** A date and a time of day in the person's language, from a server timestamp. */
export function dateTimeLabel(at: string, language: string | undefined): string {
  return new Date(timestampMs(at)).toLocaleString(language, {
    dateStyle: 'medium',
    timeStyle: 'short',
  });
}
