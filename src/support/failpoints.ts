/**
 * Named crash points for fault tests. When `CLARION_FAILPOINTS` lists a name
 * (comma-separated), reaching that point kills the process with SIGKILL: no
 * cleanup, no flush, exactly like a power cut. Unset, a failpoint is a no-op.
 */
export type FailpointName =
  | 'respond.after_claim'
  | 'delivery.after_live_hand_off'
  | 'dispatch.after_reservation'
  | 'dispatch.after_attempted_mark'
  | 'dispatch.after_prompt'
  | 'user_input.after_decision_recorded';

const armed = new Set(
  (process.env.CLARION_FAILPOINTS ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name.length > 0),
);

export function failpoint(name: FailpointName): void {
  if (armed.has(name)) process.kill(process.pid, 'SIGKILL');
}
