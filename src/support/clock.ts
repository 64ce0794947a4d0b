/**
 * Time as Clarion's rules and rows see it.
 *
 * Rules take a `Clock` instead of calling `Date.now()`, so tests can drive time.
 * Row versions (`created_at`, `updated_at`) are RFC 3339 UTC strings with nine
 * fractional digits. A clock hands out strictly increasing versions, so two writes
 * in one process never share a version and plain string order is time order.
 */
export interface Clock {
  /** Wall time in milliseconds since the epoch, for deadlines and durations. */
  nowMs(): number;
  /** A row version: RFC 3339 UTC with nine fractional digits, later than any before it. */
  timestamp(): string;
}

const NS_PER_MS = 1_000_000n;
const NS_PER_S = 1_000_000_000n;

/**
 * The last whole second formatted, and its text: a busy server stamps many
 * rows within one second, and the date's formatting was most of a stamp's cost.
 */
let lastSecond = -1n;
let lastWhole = '';

/** Formats nanoseconds since the epoch as `YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ`. */
export function formatTimestamp(epochNs: bigint): string {
  const seconds = epochNs / NS_PER_S;
  if (seconds !== lastSecond) {
    lastWhole = new Date(Number(seconds) * 1000).toISOString().slice(0, 19);
    lastSecond = seconds;
  }
  const fraction = epochNs - seconds * NS_PER_S;
  return `${lastWhole}.${fraction.toString().padStart(9, '0')}Z`;
}

const TIMESTAMP_PATTERN = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\.(\d{9})Z$/;

/** Parses a row version back to nanoseconds since the epoch; `undefined` when malformed. */
export function parseTimestamp(value: string): bigint | undefined {
  const match = TIMESTAMP_PATTERN.exec(value);
  if (!match) return undefined;
  const [, whole, fraction] = match;
  const ms = Date.parse(`${whole ?? ''}Z`);
  if (Number.isNaN(ms)) return undefined;
  return BigInt(ms) * NS_PER_MS + BigInt(fraction ?? '0');
}

/**
 * Hands out strictly increasing versions from a nanosecond source that may
 * repeat or stand still (a coarse clock, a fake clock in tests).
 */
export function monotonicTimestamps(sourceNs: () => bigint): () => string {
  let last = 0n;
  return () => {
    const now = sourceNs();
    last = now > last ? now : last + 1n;
    return formatTimestamp(last);
  };
}

/**
 * The process clock. Versions are anchored to the wall clock once and then
 * advanced by the monotonic high-resolution timer, so a wall-clock step back
 * (NTP) never makes a later write look older.
 */
export function systemClock(): Clock {
  const anchorWallNs = BigInt(Date.now()) * NS_PER_MS;
  const anchorHr = process.hrtime.bigint();
  const timestamp = monotonicTimestamps(() => anchorWallNs + (process.hrtime.bigint() - anchorHr));
  return { nowMs: () => Date.now(), timestamp };
}
