/**
 * The runtime the clarification resolver dispatches through: the agent host,
 * plus starting a session's agent when it is not running (after a restart, or
 * before its first prompt), so a detached answer can always resume its agent.
 * Starting sends no prompt, so a failed start is still a clean refusal.
 */
import type { AgentRuntime, Readiness } from '../agents/index.js';
import type { AgentLaunchDeps } from './context.js';
import { ensureAgent } from './dispatch.js';
import { confirmLease } from './fencing.js';

export function sessionRuntime(deps: AgentLaunchDeps): AgentRuntime {
  const { host } = deps;
  return {
    readiness: (sessionId) => host.readiness(sessionId),
    async prepare(sessionId): Promise<Readiness> {
      // A successor turn started now would be cut by the stop: the answer waits for the next run.
      if (deps.stopping?.() === true) return { ready: false, reason: 'this server is stopping' };
      // An idle stop decided before the caller's reservation ends that process first.
      await deps.idleStops.settled(sessionId);
      await confirmLease(deps, sessionId);
      if (!host.isStarted(sessionId)) {
        try {
          await ensureAgent(deps, sessionId);
        } catch (error) {
          return { ready: false, reason: error instanceof Error ? error.message : String(error) };
        }
      }
      return host.readiness(sessionId);
    },
    async prompt(request) {
      await confirmLease(deps, request.sessionId);
      await host.prompt(request);
    },
  };
}
