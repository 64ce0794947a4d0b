/**
 * Whether a session's agent runs outside Clarion (connected over MCP): the
 * server refuses every message for it (`deriveSessionInputMode`), nothing can
 * resume it, and an answer given after its call ended is kept until the
 * agent collects it with `wait_for_answer`. So the page offers no composer
 * and promises no resume or delivery that will not happen.
 */
import { EXTERNAL_AGENT_PROFILE } from '../../../src/wire/constants.js';
import type { ModelState } from './read-model.js';

export function isExternalSession(state: ModelState, sessionId: string | undefined): boolean {
  if (sessionId === undefined) return false;
  return state.sessions[sessionId]?.agent_profile === EXTERNAL_AGENT_PROFILE;
}
