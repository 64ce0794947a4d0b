/** The decision log's filter: local days as the server's times, and a range that runs backwards. */
import { describe, expect, it } from 'vitest';
import { filterOf, rangeInverted } from '../../web/src/model/decision-filter.js';

const midnight = (year: number, month: number, day: number) =>
  new Date(year, month - 1, day).toISOString();

describe('the decision log filter', () => {
  it('reads "from" as its local midnight and "to" as the whole of its day', () => {
    const fields = { fromDay: '2026-03-02', toDay: '2026-03-04' };
    expect(filterOf(fields)).toEqual({ since: midnight(2026, 3, 2), until: midnight(2026, 3, 5) });
    expect(rangeInverted(fields)).toBe(false);
    // One day: from its midnight to the next.
    const day = { fromDay: '2026-03-02', toDay: '2026-03-02' };
    expect(filterOf(day)).toEqual({ since: midnight(2026, 3, 2), until: midnight(2026, 3, 3) });
    expect(rangeInverted(day)).toBe(false);
  });

  it('keeps both ends of a "to" before "from", so it never reads past the "to" day', () => {
    const fields = { fromDay: '2026-03-10', toDay: '2026-03-05' };
    expect(rangeInverted(fields)).toBe(true);
    expect(filterOf(fields)).toMatchObject({ until: midnight(2026, 3, 6) });
  });

  it('leaves out an end that is not set', () => {
    expect(filterOf({ fromDay: '2026-03-10' })).toEqual({ since: midnight(2026, 3, 10) });
    expect(rangeInverted({ fromDay: '2026-03-10' })).toBe(false);
    expect(filterOf({ toDay: '2026-03-05', kind: 'consent' })).toEqual({
      kind: 'consent',
      until: midnight(2026, 3, 6),
    });
  });
});
