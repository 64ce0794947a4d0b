/**
 * The runtime until agents are hosted: no session has a running agent, so a
 * detached answer is refused before anything is sent, its claim is restored,
 * and the person can retry once an agent runs.
 */
import type { AgentRuntime } from './runtime.js';

export const unavailableRuntime: AgentRuntime = {
  readiness: () => ({ ready: false, reason: 'no agent is running for this session' }),
  prepare: () => Promise.resolve({ ready: false, reason: 'no agent is running for this session' }),
  prompt: () => Promise.reject(new Error('no agent is running for this session')),
};
