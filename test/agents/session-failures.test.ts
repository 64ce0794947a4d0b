/**
 * Failures reported truthfully, in the built server with real processes, on
 * both databases (issue 13): a missing binary, a program that is no ACP
 * agent, an agent whose `session/new` says "Authentication required" and one
 * killed mid-turn each leave a failed session that says why (kept across a
 * server restart), a message to it is 409 `session_failed`, never "sent",
 * and a restart works once the cause is gone. A shutdown is no failure.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../support/clarification-harness.js';
import { startServing, type Serving } from '../support/clarion-process.js';
import { DRIVERS, freshDatabase, type TestDatabase } from '../support/databases.js';
import { writeFixtures } from './supervisor-fixtures.js';
import { childrenOf, clarionApi, type ApiReply } from './supervisor-support.js';
import { BUILT_DEMO_AGENT, builtPath } from '../../src/support/index.js';

const ADMIN_TOKEN = 'failures-test-admin-token-0123456789';
const DEMO_AGENT = builtPath(BUILT_DEMO_AGENT);

interface SessionJson {
  id: string;
  state: string;
  failure: { code: string; message: string; at: string } | null;
}

// The two databases at once: each run waits on its own server's agents failing and starting.
describe.concurrent.each(DRIVERS)('failed agents on %s', (driver) => {
  let database: TestDatabase | undefined;
  let server: Serving | undefined;
  let dir: string | undefined;

  afterEach(async () => {
    await server?.stop();
    server = undefined;
    await database?.dispose();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('says why each agent failed, refuses messages with 409, and restarts once the cause is gone', async () => {
    database = await freshDatabase(driver, { migrated: true });
    dir = mkdtempSync(join(tmpdir(), 'clarion-failures-'));
    const fixtures = writeFixtures(dir);
    const flaky = join(dir, 'flaky-agent.sh');
    writeFileSync(flaky, 'echo "first run: no config" >&2\nexit 7\n');
    const env = {
      ...(database.target.driver === 'sqlite'
        ? { CLARION_DATA_DIR: database.target.dataDir }
        : { DATABASE_URL: database.target.url, CLARION_DATA_DIR: dir }),
      CLARION_ADMIN_TOKEN: ADMIN_TOKEN,
      CLARION_AGENT_START_TIMEOUT_S: '10',
      CLARION_AGENT_STOP_GRACE_S: '1',
      CLARION_AGENT_PROFILES: JSON.stringify({
        missing: { command: '/nonexistent/agent' },
        notacp: {
          command: '/bin/sh',
          args: ['-c', 'echo not an agent; echo "cannot read settings" >&2; exit 3'],
        },
        auth: { command: process.execPath, args: [fixtures.authRequired] },
        flaky: { command: '/bin/sh', args: [flaky] },
      }),
    };
    server = await startServing(env);
    let api = clarionApi(server.url, ADMIN_TOKEN);

    const create = async (profile: string, prompt: string) => {
      const created = await api('POST', '/api/v1/tasks', {
        title: profile,
        agent_profile: profile,
        prompt,
      });
      expect(created.status).toBe(201);
      return created.json as { admission: string; session: SessionJson; task: { id: string } };
    };
    const sessionOf = async (taskId: string) =>
      ((await api('GET', `/api/v1/tasks/${taskId}/sessions`)).json.sessions as SessionJson[])[0];
    const send = (sessionId: string, text: string, key: string): Promise<ApiReply> =>
      api('POST', `/api/v1/sessions/${sessionId}/messages`, { text, admission_key: key });

    const expectations = [
      ['missing', 'spawn_failed', ['/nonexistent/agent', 'ENOENT']],
      ['notacp', 'start_failed', ['exited while starting (code 3)', 'cannot read settings']],
      [
        'auth',
        'start_failed',
        ['session/new failed: Authentication required', 'no FIXTURE_API_KEY in the environment'],
      ],
      ['flaky', 'start_failed', ['exited while starting (code 7)', 'first run: no config']],
    ] as const;
    const tasks = new Map<string, string>();
    for (const [profile, code, words] of expectations) {
      const created = await create(profile, 'hello');
      tasks.set(profile, created.task.id);
      // Never `sent`. A start slower than the admission's own wait (a loaded
      // machine) answers `queued`, and the session then reads failed.
      expect(['failed', 'queued']).toContain(created.admission);
      let session = created.session;
      if (created.admission === 'queued') {
        await eventually(
          async () => (await sessionOf(created.task.id))?.state === 'failed',
          20_000,
        );
        session = (await sessionOf(created.task.id)) ?? session;
      }
      expect(session).toMatchObject({ state: 'failed', failure: { code } });
      for (const word of words) expect(session.failure?.message).toContain(word);

      const refused = await send(session.id, 'still there?', 'k1');
      expect(refused.status).toBe(409);
      expect(refused.json).toMatchObject({
        code: 'session_failed',
        details: { failure: session.failure },
      });
      // The same key again is refused the same way: nothing was sent, nothing is replayed.
      expect((await send(session.id, 'still there?', 'k1')).status).toBe(409);
    }

    // Restart: refused again while the cause is there, with the new reason.
    const flakySession = await sessionOf(tasks.get('flaky') ?? '');
    const restart = () => api('POST', `/api/v1/sessions/${flakySession?.id ?? ''}/restart`);
    const again = await restart();
    // A start slower than the restart's own wait (a loaded machine) answers `starting` first.
    if (again.status === 200) {
      expect(again.json.session).toMatchObject({ state: 'starting' });
      await eventually(
        async () => (await sessionOf(tasks.get('flaky') ?? ''))?.state === 'failed',
        20_000,
      );
      expect(await sessionOf(tasks.get('flaky') ?? '')).toMatchObject({
        failure: { code: 'start_failed' },
      });
    } else {
      expect(again.status).toBe(409);
      expect(again.json).toMatchObject({
        code: 'session_failed',
        details: { failure: { code: 'start_failed' } },
      });
    }
    writeFileSync(flaky, `exec "${process.execPath}" "${DEMO_AGENT}"\n`);
    const restarted = await restart();
    expect(restarted.status).toBe(200);
    // Idle once the agent runs; `starting` when its start outlasted the restart's own wait.
    expect(restarted.json.session).toMatchObject({ failure: null });
    expect(['idle', 'starting']).toContain((restarted.json.session as SessionJson).state);
    await eventually(
      async () => (await sessionOf(tasks.get('flaky') ?? ''))?.state === 'idle',
      20_000,
    );
    // The first prompt never reached the agent; its key is free to send it for real.
    const sent = await send(flakySession?.id ?? '', 'hello', 'task-prompt-again');
    expect(sent.status).toBe(200);
    expect(sent.json).toMatchObject({ outcome: 'sent' });
    const transcript = async () =>
      (
        (await api('GET', `/api/v1/sessions/${flakySession?.id ?? ''}/messages`)).json.messages as {
          content: string;
        }[]
      ).map((message) => message.content);
    await eventually(async () => (await transcript()).includes('You said: hello'), 20_000);
    expect(await restart()).toMatchObject({ status: 409, json: { code: 'conflict' } });

    // An agent killed mid-turn: the session says the signal, not a closed connection.
    const serverPid = server.child.pid ?? 0;
    const running = new Set(childrenOf(serverPid));
    const killed = await create('demo', '/permission');
    // Sent, or queued while its agent starts (a start slower than the admission's wait).
    expect(['sent', 'queued']).toContain(killed.admission);
    await eventually(async () => (await sessionOf(killed.task.id))?.state === 'running', 20_000);
    const demoPid = childrenOf(serverPid).find((pid) => !running.has(pid));
    process.kill(demoPid ?? 0, 'SIGKILL');
    await eventually(async () => (await sessionOf(killed.task.id))?.state === 'failed', 20_000);
    const dead = await sessionOf(killed.task.id);
    expect(dead?.failure).toMatchObject({
      code: 'exited',
      message: expect.stringContaining('signal SIGKILL') as unknown,
    });
    const killedTranscript = (
      (await api('GET', `/api/v1/sessions/${killed.session.id}/messages`)).json.messages as {
        content: string;
      }[]
    ).map((message) => message.content);
    expect(killedTranscript).toContain(
      "The agent's turn failed: agent process exited (signal SIGKILL)",
    );
    expect(killedTranscript.join('\n')).not.toContain('ACP connection closed');

    // Kept across a restart of the server; the shutdown itself failed nothing.
    const before = await sessionOf(tasks.get('auth') ?? '');
    await server.stop();
    server = await startServing(env);
    api = clarionApi(server.url, ADMIN_TOKEN);
    expect(await sessionOf(tasks.get('auth') ?? '')).toEqual(before);
    expect(await sessionOf(tasks.get('flaky') ?? '')).toMatchObject({ failure: null });
    expect((await sessionOf(tasks.get('flaky') ?? ''))?.state).not.toBe('failed');
  }, 120_000);
});
