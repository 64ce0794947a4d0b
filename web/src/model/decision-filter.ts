/**
 * The decision log's filter as the page holds it (local days from date
 * inputs) and as the server takes it (RFC 3339 times). A "to" day before the
 * "from" day is a range no decision lies in: the page says so and reads
 * nothing, rather than drop one end and show decisions outside the range.
 */
import type { DecisionFilter } from './api.js';
import type { DecisionEntry } from './types.js';

export interface FilterFields {
  taskId?: string;
  kind?: DecisionEntry['kind'];
  userId?: string;
  /** `YYYY-MM-DD` from a date input, local time. */
  fromDay?: string;
  toDay?: string;
}

/** Local midnight of a `YYYY-MM-DD` day, `days` later, as an RFC 3339 time. */
function localMidnight(day: string, days = 0): string | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!match) return undefined;
  const date = new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3]) + days);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** The server's `since` (inclusive) and `until` (exclusive: the day after "to"). */
function rangeOf(fields: FilterFields): { since?: string; until?: string } {
  const since = fields.fromDay ? localMidnight(fields.fromDay) : undefined;
  const until = fields.toDay ? localMidnight(fields.toDay, 1) : undefined;
  return { ...(since ? { since } : {}), ...(until ? { until } : {}) };
}

/** Whether the "to" day comes before the "from" day, so that no decision can match. */
export function rangeInverted(fields: FilterFields): boolean {
  const { since, until } = rangeOf(fields);
  return since !== undefined && until !== undefined && since >= until;
}

/** The query for `fields`; read only when the range is not inverted (`rangeInverted`). */
export function filterOf(fields: FilterFields): DecisionFilter {
  return {
    ...(fields.taskId ? { task_id: fields.taskId } : {}),
    ...(fields.kind ? { kind: fields.kind } : {}),
    ...(fields.userId ? { user_id: fields.userId } : {}),
    ...rangeOf(fields),
  };
}
