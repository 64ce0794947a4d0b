/**
 * The Claude Code agent profile the compatibility suites run: the pinned ACP
 * adapter started with node (no npx), in a home of its own, kept off every
 * host but the model endpoint it is given.
 */
import { fileURLToPath } from 'node:url';

export const CLAUDE_ACP = fileURLToPath(
  import.meta.resolve('@agentclientprotocol/claude-agent-acp/dist/index.js'),
);

/** The profile the README gives, pointed at the stand-in, in a home of its own. */
export function claudeProfile(home: string, baseUrl: string | undefined) {
  return {
    command: process.execPath,
    args: [CLAUDE_ACP],
    env: {
      HOME: home,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      ...(baseUrl === undefined
        ? {}
        : { ANTHROPIC_BASE_URL: baseUrl, ANTHROPIC_API_KEY: 'sk-ant-stand-in-not-a-key' }),
    },
  };
}
