/**
 * Compatibility with the pinned real Claude Code ACP adapter
 * (`@agentclientprotocol/claude-agent-acp` 0.101.0) through the built server
 * (issue 13): it initializes and opens a session, a missing key is the
 * session's failure (409 `session_failed` on the next message), and a
 * delete tears it down leaving no process of its group.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../support/clarification-harness.js';
import { startServing, type Serving } from '../support/clarion-process.js';
import { freshDatabase, type TestDatabase } from '../support/databases.js';
import {
  startMessagesApiStandIn,
  type MessagesApiStandIn,
} from '../support/messages-api-stand-in.js';
import { claudeProfile } from './claude-profile.js';
import { childrenOf, clarionApi, groupGone } from './supervisor-support.js';

const ADMIN_TOKEN = 'claude-compat-admin-token-0123456789';
/** Stop grace plus kill wait, with room for a loaded machine. */
const TEARDOWN_BOUND_MS = 15_000;

const LAUNCHERS = ['node', 'npx'] as const;
type Launcher = (typeof LAUNCHERS)[number];
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

describe('the Claude Code ACP adapter through Clarion', () => {
  let standIn: MessagesApiStandIn | undefined;
  let database: TestDatabase | undefined;
  let server: Serving | undefined;
  let home: string | undefined;

  afterEach(async () => {
    await server?.stop();
    server = undefined;
    await standIn?.close();
    standIn = undefined;
    await database?.dispose();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  async function serve(baseUrl: string | undefined, launcher: Launcher = 'node') {
    home = mkdtempSync(join(tmpdir(), 'clarion-claude-home-'));
    database = await freshDatabase('sqlite');
    if (database.target.driver !== 'sqlite') throw new Error('sqlite expected');
    const profile = claudeProfile(home, baseUrl);
    server = await startServing({
      CLARION_DATA_DIR: database.target.dataDir,
      CLARION_ADMIN_TOKEN: ADMIN_TOKEN,
      CLARION_AGENT_PROFILES: JSON.stringify({
        claude: launcher === 'node' ? profile : { ...profile, ...NPX_LAUNCHER },
      }),
    });
    return { api: clarionApi(server.url, ADMIN_TOKEN), serverPid: server.child.pid ?? 0 };
  }

  it.each(LAUNCHERS)(
    'started with %s: initializes, opens a session, answers a prompt, and a delete leaves no process of its group',
    async (launcher) => {
      standIn = await startMessagesApiStandIn(() => [
        { type: 'text', text: 'Hello from the stand-in.' },
      ]);
      const { api, serverPid } = await serve(standIn.url, launcher);
      const created = await api('POST', '/api/v1/tasks', {
        title: 'hello',
        agent_profile: 'claude',
        prompt: 'Say hello.',
      });
      expect(created.status).toBe(201);
      // Admission waits for the start only briefly: the prompt is sent, or queued until it is up.
      expect(['sent', 'queued']).toContain(created.json.admission);
      const sessionId = (created.json.session as { id: string }).id;
      await eventually(async () => {
        const page = await api('GET', `/api/v1/sessions/${sessionId}/messages?limit=500`);
        return (page.json.messages as { content: string }[]).some((message) =>
          message.content.includes('Hello from the stand-in.'),
        );
      }, 60_000);
      const agents = childrenOf(serverPid);
      expect(agents.length).toBe(1);

      const started = Date.now();
      const deleted = await api('DELETE', `/api/v1/sessions/${sessionId}`);
      expect(deleted.status).toBe(200);
      expect(Date.now() - started).toBeLessThan(TEARDOWN_BOUND_MS);
      // The agent led its own group; nothing of it (the Claude Code CLI included) runs on.
      await eventually(() => groupGone(agents[0] ?? 0), TEARDOWN_BOUND_MS);
    },
    120_000,
  );

  it('without a key or model endpoint fails the session with the reason, and the next message is 409 session_failed', async () => {
    const { api, serverPid } = await serve(undefined);
    const created = await api('POST', '/api/v1/tasks', {
      title: 'no key',
      agent_profile: 'claude',
      prompt: 'Say hello.',
    });
    expect(created.status).toBe(201);
    const sessionId = (created.json.session as { id: string }).id;
    let session: Record<string, unknown> = {};
    await eventually(async () => {
      const list = await api(
        'GET',
        `/api/v1/tasks/${(created.json.task as { id: string }).id}/sessions`,
      );
      session = (list.json.sessions as Record<string, unknown>[])[0] ?? {};
      return session.state === 'failed';
    }, 60_000);
    expect(session.failure).toMatchObject({
      code: 'start_failed',
      message: expect.stringContaining('Authentication required') as unknown,
    });
    const next = await api('POST', `/api/v1/sessions/${sessionId}/messages`, {
      text: 'again',
      admission_key: 'compat-again',
    });
    expect(next.status).toBe(409);
    expect(next.json.code).toBe('session_failed');
    await eventually(() => childrenOf(serverPid).length === 0, TEARDOWN_BOUND_MS);
  }, 120_000);
});
