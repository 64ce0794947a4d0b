/**
 * Maps an ACP `session/prompt` stop reason to Clarion's `StopReason`. ACP v1
 * reasons pass through; anything else (a newer or broken agent) is a failed
 * turn, so a turn never ends "normally" on a reason Clarion cannot read.
 */
import type { StopReason } from '../runtime.js';

const ACP_STOP_REASONS: ReadonlySet<string> = new Set([
  'end_turn',
  'max_tokens',
  'max_turn_requests',
  'refusal',
  'cancelled',
]);

export type MappedStopReason = { stopReason: StopReason; error?: string };

export function mapStopReason(value: unknown): MappedStopReason {
  if (typeof value === 'string' && ACP_STOP_REASONS.has(value)) {
    return { stopReason: value as StopReason };
  }
  return {
    stopReason: 'failed',
    error: `agent ended the turn with unknown stop reason ${value === undefined ? 'undefined' : JSON.stringify(value)}`,
  };
}
