import { describe, expect, it } from 'vitest';
import { mapStopReason } from './stop-reasons.js';

describe('stop reason mapping', () => {
  it.each(['end_turn', 'max_tokens', 'max_turn_requests', 'refusal', 'cancelled'] as const)(
    'passes the ACP reason %s through',
    (reason) => {
      expect(mapStopReason(reason)).toEqual({ stopReason: reason });
    },
  );

  it.each([['paused'], [''], [undefined], [42], ['failed']])(
    'maps %j to a failed turn with an explanation',
    (value) => {
      const mapped = mapStopReason(value);
      expect(mapped.stopReason).toBe('failed');
      expect(mapped.error).toMatch(/unknown stop reason/);
    },
  );
});
