/**
 * The configured agent profiles as people may see them: how each agent is
 * started, which of Clarion's variables it is handed, and the names (never
 * the values) of the variables its profile sets, since those may be keys.
 */
import type { AgentProfileView } from '../wire/index.js';
import type { TurnsDeps } from './context.js';

export function agentProfileList(deps: Pick<TurnsDeps, 'profiles'>): AgentProfileView[] {
  return [...deps.profiles.values()].map((profile) => ({
    name: profile.name,
    command: profile.command,
    args: [...profile.args],
    pass_env: [...(profile.passEnv ?? [])],
    env_names: Object.keys(profile.env),
    cwd: profile.cwd ?? null,
  }));
}
