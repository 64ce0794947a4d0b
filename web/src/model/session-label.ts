/**
 * What a session's chip says. "Running" is true of the agent's process, not
 * of what the person sees: while the agent waits on a permission, an action
 * or an answer, the chip names that wait. Until the session's own read
 * arrives the chip says so (`loading`); `unknown` is kept for a state the
 * server reports that this build does not know. Pure.
 */
import { SESSION_STATES } from '../../../src/wire/constants.js';
import type { BundleState, SessionEntry } from './read-model.js';

export type SessionLabel =
  | NonNullable<SessionEntry['state']>
  | 'loading'
  | 'unknown'
  | 'waiting_permission'
  | 'waiting_action'
  | 'waiting_form'
  | 'waiting_answer'
  | 'waiting_detached';

/**
 * `waiting` are the kinds of the session's consent and action requests still
 * waiting for a person, as the page shows them; `pending_action` reaches the
 * model only through live events, so a page opened later learns it there.
 */
export function sessionLabel(
  session: SessionEntry | undefined,
  live: BundleState | undefined,
  waiting: readonly ('consent' | 'form' | 'action')[] = [],
): SessionLabel {
  const state = session?.state;
  if (state === undefined) return 'loading';
  if (state === 'completed' || state === 'failed' || state === 'cancelled') return state;
  if (session?.pending_action === 'consent' || waiting.includes('consent')) {
    return 'waiting_permission';
  }
  if (session?.pending_action === 'form' || waiting.includes('form')) return 'waiting_form';
  if (session?.pending_action === 'action' || waiting.includes('action')) return 'waiting_action';
  if (live) return live.detached ? 'waiting_detached' : 'waiting_answer';
  if (state === 'waiting_for_input' || session?.pending_action === 'clarification') {
    return 'waiting_answer';
  }
  // The client casts replies without parsing them: a newer server's state arrives as it is.
  return (SESSION_STATES as readonly string[]).includes(state) ? state : 'unknown';
}
