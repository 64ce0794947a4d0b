import { describe, expect, it } from 'vitest';
import { authenticationHint, envVarAuthMethod } from './authentication.js';

/** What Codex's adapter (0.16.0) lists in its `initialize` reply. */
const CODEX_METHODS = [
  { id: 'chatgpt', name: 'Login with ChatGPT', description: 'Use your ChatGPT login' },
  {
    type: 'env_var',
    id: 'codex-api-key',
    name: 'Use CODEX_API_KEY',
    vars: [{ name: 'CODEX_API_KEY' }],
  },
  {
    type: 'env_var',
    id: 'openai-api-key',
    name: 'Use OPENAI_API_KEY',
    vars: [{ name: 'OPENAI_API_KEY' }],
  },
];

describe('envVarAuthMethod', () => {
  it('picks the first env_var method whose variables the agent’s environment holds', () => {
    expect(envVarAuthMethod(CODEX_METHODS, { OPENAI_API_KEY: 'sk-1' })).toBe('openai-api-key');
    expect(envVarAuthMethod(CODEX_METHODS, { OPENAI_API_KEY: 'sk-1', CODEX_API_KEY: 'sk-2' })).toBe(
      'codex-api-key',
    );
  });

  it('picks none when a variable is missing or empty, and never a sign-in a person must do', () => {
    expect(envVarAuthMethod(CODEX_METHODS, {})).toBeUndefined();
    expect(envVarAuthMethod(CODEX_METHODS, { CODEX_API_KEY: '' })).toBeUndefined();
    const both = [{ type: 'env_var', id: 'pair', vars: [{ name: 'A' }, { name: 'B' }] }];
    expect(envVarAuthMethod(both, { A: '1' })).toBeUndefined();
    expect(envVarAuthMethod(both, { A: '1', B: '2' })).toBe('pair');
    const terminal = [{ type: 'terminal', id: 'login', name: 'Log in', args: ['--login'] }];
    expect(envVarAuthMethod(terminal, { PATH: '/bin' })).toBeUndefined();
  });

  it.each([undefined, null, 'env_var', [null, 1, 'x'], [{ type: 'env_var', id: 'x', vars: [] }]])(
    'reads %j as no method rather than failing the start',
    (authMethods) => {
      expect(envVarAuthMethod(authMethods, { X: '1' })).toBeUndefined();
      expect(authenticationHint(authMethods)).toBeUndefined();
    },
  );
});

describe('authenticationHint', () => {
  it('names the variables each env_var method reads', () => {
    expect(authenticationHint(CODEX_METHODS)).toBe(
      "the agent reads CODEX_API_KEY or OPENAI_API_KEY: set it in the profile's env or pass_env",
    );
  });
});
