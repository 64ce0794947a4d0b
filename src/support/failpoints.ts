import { systemTimers } from './timers.js';

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

/**
 * Named pause points for race tests, in the test's own process: a test arms
 * one (`armPause`) and the next arrival there waits until the test releases
 * it, or its bound passes, so the test can land an event in a window that is
 * otherwise too narrow to hit. Unarmed, `pausePoint` gives nothing to await.
 */
export type PausePointName =
  | 'wait_for_answer.before_attach'
  | 'wait_for_answer.before_live_wait'
  | 'respond.before_claim'
  | 'cancel.before_write'
  | 'superseded_waits.before_read'
  | 'user_input.before_copy_kept'
  | 'user_input.before_decision_recorded'
  | 'action_tool.after_turn_check'
  | 'agent_start.before_host_start'
  | 'notify.before_answer_links'
  | 'notify.answer_links_checking'
  | 'notify.answer_links_held'
  | 'notify.channel_removal_locked'
  | 'mcp.before_find'
  | 'mcp.before_reopen';

export interface ArmedPause {
  /** Resolves when the code reached the point and waits there. */
  reached: Promise<void>;
  /** Lets the waiting code go on; disarms the point if nothing reached it. */
  release(): void;
}

const pauses = new Map<PausePointName, { arrive(): void; released: Promise<void> }>();

/** Whatever the caller awaits here: a pause when a test armed `name`, else undefined. */
export function pausePoint(name: PausePointName): Promise<void> | undefined {
  const pause = pauses.get(name);
  if (!pause) return undefined;
  // Once: a test pauses one arrival, not every one after it.
  pauses.delete(name);
  pause.arrive();
  return pause.released;
}

/** Pauses the next arrival at `name` until `release()`, or `boundMs` at most. */
export function armPause(name: PausePointName, boundMs: number): ArmedPause {
  let arrive: () => void = () => undefined;
  let letGo: () => void = () => undefined;
  const reached = new Promise<void>((resolve) => {
    arrive = resolve;
  });
  const released = new Promise<void>((resolve) => {
    letGo = resolve;
  });
  const entry = { arrive, released };
  const release = () => {
    if (pauses.get(name) === entry) pauses.delete(name);
    bound.cancel();
    letGo();
  };
  const bound = systemTimers.setTimeout(release, boundMs);
  pauses.set(name, entry);
  return { reached, release };
}
