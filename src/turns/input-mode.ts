/**
 * What a session does with a new user message right now (pure). One rule for
 * the composer, late answers and follow-ups alike: send when the agent is
 * free, queue behind a running turn, refuse when nothing can take it.
 *
 * A pending clarification does not decide this: a stale question must never
 * queue an otherwise idle session forever (first seed document).
 */
import { EXTERNAL_AGENT_PROFILE } from '../agents/index.js';
import type { SessionState } from '../store/index.js';

export type InputMode =
  | { mode: 'send' }
  | { mode: 'queue' }
  | { mode: 'refuse'; reason: 'session_ended' | 'external_agent' };

export function deriveSessionInputMode(session: {
  state: SessionState;
  agent_profile: string;
  /**
   * Whether a turn runs, for a session waiting for input: false when its
   * agent asked between turns, so no turn's end would ever start a queued
   * message. Absent, one runs.
   */
  turnRunning?: boolean;
}): InputMode {
  if (session.agent_profile === EXTERNAL_AGENT_PROFILE) {
    return { mode: 'refuse', reason: 'external_agent' };
  }
  switch (session.state) {
    case 'idle':
      return { mode: 'send' };
    case 'waiting_for_input':
      return session.turnRunning === false ? { mode: 'send' } : { mode: 'queue' };
    case 'starting':
    case 'running':
      return { mode: 'queue' };
    case 'completed':
    case 'failed':
    case 'cancelled':
      return { mode: 'refuse', reason: 'session_ended' };
  }
}
