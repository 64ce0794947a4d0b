/**
 * Agent profiles from configuration: `CLARION_AGENT_PROFILES` as JSON
 * `{"name": {"command": "...", "args": [...], "env": {...}, "pass_env":
 * ["ANTHROPIC_API_KEY"], "cwd": "/abs/dir"}}`, merged over the built-in
 * `demo` profile (a configured `demo` replaces it). `env` values may be
 * secrets: they are never listed. A bad value is one clear error naming the
 * variable and the path of each problem.
 */
import { existsSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { BUILT_DEMO_AGENT, builtPath } from '../support/index.js';
import { EXTERNAL_AGENT_PROFILE, type AgentProfile } from './runtime.js';

export const DEFAULT_AGENT_PROFILE = 'demo';
export const AGENT_PROFILES_VARIABLE = 'CLARION_AGENT_PROFILES';

export class AgentProfileConfigError extends Error {
  readonly code = 'invalid_config';
  constructor(message: string) {
    super(message);
    this.name = 'AgentProfileConfigError';
  }
}

const PROFILE_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

const profileEntry = z.strictObject({
  command: z
    .string({ error: 'command must be a string' })
    .trim()
    .min(1, 'command must not be empty'),
  args: z
    .array(z.string({ error: 'args must be strings' }), {
      error: 'args must be an array of strings',
    })
    .default([]),
  env: z
    .record(z.string(), z.string({ error: 'env values must be strings' }), {
      error: 'env must be an object of strings',
    })
    .default({}),
  pass_env: z
    .array(
      z
        .string({ error: 'pass_env must name variables' })
        .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'pass_env names must be environment variable names'),
      { error: 'pass_env must be an array of variable names' },
    )
    .default([]),
  cwd: z
    .string({ error: 'cwd must be a string' })
    .refine((value) => isAbsolute(value), 'cwd must be an absolute path')
    .optional(),
});

const profileMap = z.record(
  z
    .string()
    .regex(PROFILE_NAME, 'profile names must be 1–64 letters, digits, _ . or -')
    .refine((name) => name !== EXTERNAL_AGENT_PROFILE, {
      error: `"${EXTERNAL_AGENT_PROFILE}" is reserved for agents Clarion did not start`,
    }),
  profileEntry,
);

/** The built demo agent, bundled into one file (`node.vite.config.ts`). */
export function demoAgentPath(): string {
  return builtPath(BUILT_DEMO_AGENT);
}

export function demoAgentProfile(): AgentProfile {
  return {
    name: DEFAULT_AGENT_PROFILE,
    command: process.execPath,
    args: [demoAgentPath()],
    env: {},
  };
}

/** Every configured profile by name, the built-in `demo` included. */
export function loadAgentProfiles(
  env: NodeJS.ProcessEnv = process.env,
): ReadonlyMap<string, AgentProfile> {
  const profiles = new Map<string, AgentProfile>([[DEFAULT_AGENT_PROFILE, demoAgentProfile()]]);
  const raw = env[AGENT_PROFILES_VARIABLE];
  if (raw === undefined || raw.trim() === '') return profiles;
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    throw new AgentProfileConfigError(
      `${AGENT_PROFILES_VARIABLE} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new AgentProfileConfigError(
      `${AGENT_PROFILES_VARIABLE} must be a JSON object of profiles`,
    );
  }
  const parsed = profileMap.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const path = issue.path.map(String).join('.');
      // A bad profile name nests its reason; the nested message is the useful one.
      const message =
        issue.code === 'invalid_key'
          ? issue.issues.map((inner) => inner.message).join(', ')
          : issue.message;
      return path === '' ? message : `${path}: ${message}`;
    });
    throw new AgentProfileConfigError(
      `${AGENT_PROFILES_VARIABLE} is invalid: ${problems.join('; ')}`,
    );
  }
  for (const [name, entry] of Object.entries(parsed.data)) {
    profiles.set(name, {
      name,
      command: entry.command,
      args: entry.args,
      env: entry.env,
      passEnv: entry.pass_env,
      ...(entry.cwd === undefined ? {} : { cwd: entry.cwd }),
    });
  }
  return profiles;
}

/** Whether the built demo agent exists (it needs `npm run build`). */
export function demoAgentBuilt(): boolean {
  return existsSync(demoAgentPath());
}
