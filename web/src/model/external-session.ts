/**
 * Whether a session's agent runs outside Clarion (connected over MCP): the
 * server refuses every message for it (`deriveSessionInputMode`), nothing can
 * resume it, and an answer given after its call ended is kept until the
 * agent collects it with `wait_for_answer`. So the page offers no composer
 * and promises no resume or delivery that will not happen.
 */
import { EXTERNAL_AGENT_PROFILE } from '../../../src/wire/constants.js';
import type { ModelState } from './read-model.js';

/**
 * Where a session's agent runs: `unknown` until the session's read lands
 * (a question from the pending list can arrive first), when neither a
 * resume nor a wait for `wait_for_answer` may be promised.
 */
export type AgentPlace = 'external' | 'clarion' | 'unknown';

export function agentPlaceOf(state: ModelState, sessionId: string | undefined): AgentPlace {
  const profile = sessionId === undefined ? undefined : state.sessions[sessionId]?.agent_profile;
  if (profile === undefined) return 'unknown';
  return profile === EXTERNAL_AGENT_PROFILE ? 'external' : 'clarion';
}

export function isExternalSession(state: ModelState, sessionId: string | undefined): boolean {
  return agentPlaceOf(state, sessionId) === 'external';
}
