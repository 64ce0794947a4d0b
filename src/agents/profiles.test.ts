import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  AgentProfileConfigError,
  DEFAULT_AGENT_PROFILE,
  demoAgentPath,
  loadAgentProfiles,
} from './profiles.js';

function configError(env: NodeJS.ProcessEnv): AgentProfileConfigError {
  try {
    loadAgentProfiles(env);
  } catch (error) {
    if (error instanceof AgentProfileConfigError) return error;
    throw error;
  }
  throw new Error('expected an invalid_config error');
}

describe('agent profiles', () => {
  it('offers the built demo agent by default', () => {
    const profiles = loadAgentProfiles({});
    expect(DEFAULT_AGENT_PROFILE).toBe('demo');
    expect([...profiles.keys()]).toEqual(['demo']);
    const demo = profiles.get('demo');
    expect(demo).toEqual({
      name: 'demo',
      command: process.execPath,
      args: [demoAgentPath()],
      env: {},
    });
    expect(demoAgentPath()).toMatch(/dist\/node\/demo-agent\.js$/);
    // `npm test` builds first; the path must name the file that build writes.
    expect(existsSync(demoAgentPath())).toBe(true);
  });

  it('merges configured profiles over the demo, with defaults for args and env', () => {
    const profiles = loadAgentProfiles({
      CLARION_AGENT_PROFILES: JSON.stringify({
        claude: {
          command: 'claude-agent-acp',
          env: { CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' },
          pass_env: ['ANTHROPIC_API_KEY'],
          cwd: '/srv/work',
        },
        gemini: { command: 'gemini', args: ['--experimental-acp'] },
        demo: { command: '/usr/local/bin/other-demo' },
      }),
    });
    expect(profiles.get('claude')).toEqual({
      name: 'claude',
      command: 'claude-agent-acp',
      args: [],
      env: { CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' },
      passEnv: ['ANTHROPIC_API_KEY'],
      cwd: '/srv/work',
    });
    expect(profiles.get('gemini')?.env).toEqual({});
    expect(profiles.get('demo')).toEqual({
      name: 'demo',
      command: '/usr/local/bin/other-demo',
      args: [],
      env: {},
      passEnv: [],
    });
  });

  it('treats an empty variable as unset', () => {
    expect([...loadAgentProfiles({ CLARION_AGENT_PROFILES: '  ' }).keys()]).toEqual(['demo']);
  });

  it.each([
    ['{not json', /not valid JSON/],
    ['[]', /must be a JSON object of profiles/],
    ['{"x": {"args": []}}', /x\.command/],
    ['{"x": {"command": ""}}', /x\.command: command must not be empty/],
    ['{"x": {"command": "a", "args": "b"}}', /x\.args/],
    ['{"x": {"command": "a", "env": {"K": 1}}}', /x\.env\.K/],
    ['{"x": {"command": "a", "extra": true}}', /x/],
    ['{"bad name!": {"command": "a"}}', /profile names must be/],
    ['{"external": {"command": "a"}}', /reserved/],
    ['{"x": {"command": "a", "pass_env": "KEY"}}', /x\.pass_env/],
    ['{"x": {"command": "a", "pass_env": ["A=B"]}}', /x\.pass_env\.0: pass_env names must be/],
    ['{"x": {"command": "a", "cwd": "relative/dir"}}', /x\.cwd: cwd must be an absolute path/],
  ])('refuses %s with a clear invalid_config error', (raw, message) => {
    const error = configError({ CLARION_AGENT_PROFILES: raw });
    expect(error.code).toBe('invalid_config');
    expect(error.message).toMatch(/^CLARION_AGENT_PROFILES /);
    expect(error.message).toMatch(message);
  });
});
