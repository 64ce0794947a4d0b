/**
 * Compatibility with the pinned real Claude Code ACP adapter
 * (`@agentclientprotocol/claude-agent-acp` 0.101.0) through the built server
 * (issue 13): it initializes and opens a session, a missing key is the
 * session's failure (409 `session_failed` on the next message), and a
 * delete tears it down leaving no process of its group, whether the profile
 * starts it with node or with npx.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { eventually } from '../support/clarification-harness.js';
import {
  startMessagesApiStandIn,
  type MessagesApiStandIn,
  type MessagesScript,
} from '../support/messages-api-stand-in.js';
import { claudeProfile } from './claude-profile.js';
import { AGENT_WAIT_MS, useCompatWorld } from './compat-world.js';

/**
 * The launcher the issue saw hang Clarion: `npx` runs `npm exec`, which
 * starts the adapter's bin as a child holding the same pipes. From the
 * repository's root, so the pinned copy is found without a download.
 */
const NPX_LAUNCHER = {
  command: 'npx',
  args: ['--no-install', 'claude-agent-acp'],
  cwd: fileURLToPath(new URL('../..', import.meta.url)),
};

function claudeWorld(launcher: 'node' | 'npx') {
  return useCompatWorld<MessagesScript, MessagesApiStandIn>({
    name: 'claude',
    adminToken: 'claude-compat-admin-token-0123456789',
    profile: (home, modelUrl) => ({
      ...claudeProfile(home, modelUrl),
      ...(launcher === 'npx' ? NPX_LAUNCHER : {}),
    }),
    startStandIn: startMessagesApiStandIn,
  });
}

describe('the Claude Code ACP adapter through Clarion', () => {
  const worlds = { node: claudeWorld('node'), npx: claudeWorld('npx') };

  it.each(['node', 'npx'] as const)(
    'started with %s: initializes, opens a session, answers a prompt, and a delete leaves no process of its group',
    async (launcher) => {
      const clarion = await worlds[launcher].serve(() => [
        { type: 'text', text: 'Hello from the stand-in.' },
      ]);
      const { sessionId, admission } = await clarion.startTask('Say hello.');
      // Admission waits for the start only briefly: the prompt is sent, or queued until it is up.
      expect(['sent', 'queued']).toContain(admission);
      await eventually(
        () => clarion.transcriptHas(sessionId, 'Hello from the stand-in.'),
        AGENT_WAIT_MS,
      );
      // The agent led its own group; nothing of it (the Claude Code CLI included) runs on.
      await clarion.expectDeleteLeavesNothing(sessionId);
    },
    120_000,
  );

  it('without a key or model endpoint fails the session with the reason, and the next message is 409 session_failed', async () => {
    const clarion = await worlds.node.serve(undefined);
    const task = await clarion.startTask('Say hello.');
    await clarion.expectStartFailed(task, ['Authentication required']);
  }, 120_000);
});
