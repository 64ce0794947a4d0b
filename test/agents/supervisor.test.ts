/**
 * The agent supervisor in the built server with real processes (issue 13):
 * agents behind a wrapper (`sh -c`, a launcher whose child ignores SIGTERM
 * and holds the pipes) never hang create, delete or shutdown, and leave no
 * process of their group behind.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../support/clarification-harness.js';
import { startServing, type Serving } from '../support/clarion-process.js';
import { freshDatabase, type TestDatabase } from '../support/databases.js';
import { writeFixtures } from './supervisor-fixtures.js';
import { clarionApi, groupGone } from './supervisor-support.js';

const ADMIN_TOKEN = 'supervisor-test-admin-token-0123456789';
/** Start timeout plus stop grace plus the kill wait, with room for a loaded machine. */
const BOUND_MS = 12_000;

/** Leader pid (the group's id) and every pid a fixture wrote to its file. */
function pidsIn(file: string): number[] {
  try {
    return readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((line) => /(\d+)\s*$/.exec(line)?.slice(1) ?? [])
      .map(Number);
  } catch {
    return [];
  }
}

async function timed<T>(work: Promise<T>): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await work;
  return { value, ms: Date.now() - started };
}

describe('agent supervisor with wrapped agents', () => {
  let database: TestDatabase | undefined;
  let server: Serving | undefined;
  let dir: string | undefined;

  afterEach(async () => {
    await server?.stop();
    server = undefined;
    await database?.dispose();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function serve(startTimeoutS: string) {
    database = await freshDatabase('sqlite');
    if (database.target.driver !== 'sqlite') throw new Error('sqlite expected');
    dir = mkdtempSync(join(tmpdir(), 'clarion-supervisor-'));
    const fixtures = writeFixtures(dir);
    const files = { wrapped: join(dir, 'wrapped.pids'), stubborn: join(dir, 'stubborn.pids') };
    server = await startServing({
      CLARION_DATA_DIR: database.target.dataDir,
      CLARION_ADMIN_TOKEN: ADMIN_TOKEN,
      CLARION_AGENT_START_TIMEOUT_S: startTimeoutS,
      CLARION_AGENT_STOP_GRACE_S: '1',
      CLARION_AGENT_PROFILES: JSON.stringify({
        wrapped: {
          command: '/bin/sh',
          args: ['-c', 'echo $$ >> "$PID_FILE"; sleep 300; :'],
          env: { PID_FILE: files.wrapped },
        },
        stubborn: {
          command: process.execPath,
          args: [fixtures.stubborn],
          env: { PID_FILE: files.stubborn },
        },
      }),
    });
    return { api: clarionApi(server.url, ADMIN_TOKEN), files };
  }

  it('fails a create whose agent never speaks ACP within the start bound, and kills its group', async () => {
    const { api, files } = await serve('2');
    for (const profile of ['wrapped', 'stubborn'] as const) {
      const { value: created, ms } = await timed(
        api('POST', '/api/v1/tasks', { title: profile, agent_profile: profile, prompt: 'hi' }),
      );
      expect(ms).toBeLessThan(BOUND_MS);
      expect(created.status).toBe(201);
      // Admission waits for the start only briefly: the prompt is queued while the agent
      // starts, or refused if the start already failed. Either way the session fails.
      expect(['failed', 'queued']).toContain(created.json.admission);
      const taskId = (created.json.task as { id: string }).id;
      let session: unknown;
      await eventually(async () => {
        const listed = await api('GET', `/api/v1/tasks/${taskId}/sessions`);
        session = (listed.json.sessions as unknown[])[0];
        return (session as { state: string } | undefined)?.state === 'failed';
      }, 20_000);
      expect(session).toMatchObject({
        state: 'failed',
        failure: {
          code: 'start_failed',
          message: expect.stringContaining('within 2000 ms') as unknown,
        },
      });
      const pids = pidsIn(files[profile]);
      expect(pids.length).toBe(profile === 'stubborn' ? 2 : 1);
      // The wrapper leads the group; the stubborn child took SIGKILL.
      expect(groupGone(pids[0] ?? 0)).toBe(true);
    }
  }, 60_000);

  it('deletes a session whose agent is still starting, and stops on SIGTERM, both within bounds', async () => {
    const { api, files } = await serve('120');
    const creating = timed(
      api('POST', '/api/v1/tasks', { title: 'stuck', agent_profile: 'stubborn', prompt: 'hi' }),
    );
    await eventually(() => pidsIn(files.stubborn).length === 2, 20_000);
    const tasks = (await api('GET', '/api/v1/tasks')).json.tasks as { id: string }[];
    const sessions = await api('GET', `/api/v1/tasks/${tasks[0]?.id ?? ''}/sessions`);
    const sessionId = (sessions.json.sessions as { id: string }[])[0]?.id ?? '';

    const deleted = await timed(api('DELETE', `/api/v1/sessions/${sessionId}`));
    expect(deleted.value.status).toBe(200);
    expect(deleted.ms).toBeLessThan(BOUND_MS);
    // The create that started it answers too, at once: it waits on nothing that is gone.
    const created = await creating;
    expect(created.ms).toBeLessThan(BOUND_MS + 20_000);
    expect(created.value.status).toBe(201);
    const stubborn = pidsIn(files.stubborn);
    expect(groupGone(stubborn[0] ?? 0)).toBe(true);

    // A second agent still starting when the server is told to stop.
    void api('POST', '/api/v1/tasks', { title: 'w', agent_profile: 'wrapped', prompt: 'hi' }).catch(
      () => undefined,
    );
    await eventually(() => pidsIn(files.wrapped).length === 1, 20_000);
    const running = server;
    server = undefined;
    const stopped = await timed(running?.stop() ?? Promise.resolve(undefined));
    expect(stopped.ms).toBeLessThan(BOUND_MS);
    expect(stopped.value?.code).toBe(0);
    expect(groupGone(pidsIn(files.wrapped)[0] ?? 0)).toBe(true);
  }, 90_000);
});
