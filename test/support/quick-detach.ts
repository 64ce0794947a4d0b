/**
 * The built-in `demo` profile with `/ask-detach` giving up its own call after
 * `QUICK_DETACH_MS` instead of 2 s (`CLARION_DEMO_DETACH_AFTER_MS`), for tests
 * that only wait for the detach to happen. The demo agent never gives up
 * before Clarion said the question is written, so a short wait loses none.
 */
import { demoAgentProfile, loadAgentProfiles } from '../../src/agents/profiles.js';
import type { AgentProfile } from '../../src/agents/runtime.js';

export const QUICK_DETACH_MS = 200;

/** `CLARION_AGENT_PROFILES` for a `clarion serve` process, or for `loadAgentProfiles`. */
export function quickDetachEnv(): { CLARION_AGENT_PROFILES: string } {
  const demo = demoAgentProfile();
  return {
    CLARION_AGENT_PROFILES: JSON.stringify({
      [demo.name]: {
        command: demo.command,
        args: demo.args,
        env: { ...demo.env, CLARION_DEMO_DETACH_AFTER_MS: String(QUICK_DETACH_MS) },
      },
    }),
  };
}

/** The agent profiles of an in-process server, the demo's detach quick. */
export function quickDetachProfiles(): ReadonlyMap<string, AgentProfile> {
  return loadAgentProfiles(quickDetachEnv());
}
