/**
 * Agents start in the background, stop when idle and resume (issue 13), in
 * the built server with real agent processes, on both databases: create
 * answers while a slow agent still starts (the session shows `starting`,
 * then runs the prompt); an idle demo agent is stopped and the next prompt
 * loads its conversation (`/recall` quotes the earlier prompt); an agent
 * that cannot load starts fresh with a note; a message queued when Clarion
 * stopped runs after its restart with nothing else happening.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../support/clarification-harness.js';
import { startServing, type Serving } from '../support/clarion-process.js';
import { DRIVERS, freshDatabase, type TestDatabase } from '../support/databases.js';
import { childrenOf, clarionApi } from './supervisor-support.js';
import { BUILT_DEMO_AGENT, builtPath } from '../../src/support/index.js';

const ADMIN_TOKEN = 'idle-resume-test-admin-token-0123456789';
const DEMO_AGENT = builtPath(BUILT_DEMO_AGENT);
const FRESH_NOTE = 'started again in a new conversation';

interface SessionJson {
  id: string;
  task_id: string;
  state: string;
  failure: unknown;
}

// The two databases at once: each run waits out idle stops and a restart on its own server.
describe.concurrent.each(DRIVERS)('idle stop, resume and background start on %s', (driver) => {
  let database: TestDatabase | undefined;
  let server: Serving | undefined;
  let dir: string | undefined;

  afterEach(async () => {
    await server?.stop();
    server = undefined;
    await database?.dispose();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('starts in the background, stops idle agents, resumes them, and drains queues after a restart', async () => {
    database = await freshDatabase(driver, { migrated: true });
    dir = mkdtempSync(join(tmpdir(), 'clarion-idle-'));
    const gate = join(dir, 'slow-agent-may-start');
    const demo = (env: Record<string, string> = {}) => ({
      command: process.execPath,
      args: [DEMO_AGENT],
      env: { CLARION_DEMO_HISTORY_DIR: join(dir ?? '', 'history'), ...env },
    });
    const env = {
      ...(database.target.driver === 'sqlite'
        ? { CLARION_DATA_DIR: database.target.dataDir }
        : { DATABASE_URL: database.target.url, CLARION_DATA_DIR: dir }),
      CLARION_ADMIN_TOKEN: ADMIN_TOKEN,
      CLARION_AGENT_START_TIMEOUT_S: '20',
      CLARION_AGENT_STOP_GRACE_S: '1',
      CLARION_AGENT_IDLE_S: '1.5',
      CLARION_AGENT_PROFILES: JSON.stringify({
        demo: demo(),
        forgetful: demo({ DEMO_AGENT_NO_LOAD: '1' }),
        // Starts only once the test opens its gate: slow for as long as the test needs.
        slow: {
          command: '/bin/sh',
          args: [
            '-c',
            `while [ ! -e "$GATE" ]; do sleep 0.05; done; exec "${process.execPath}" "${DEMO_AGENT}"`,
          ],
          env: { CLARION_DEMO_HISTORY_DIR: join(dir, 'history'), GATE: gate },
        },
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
      return created.json as { admission: string; session: SessionJson };
    };
    const sessionView = async (session: SessionJson) =>
      (
        (await api('GET', `/api/v1/tasks/${session.task_id}/sessions`)).json
          .sessions as SessionJson[]
      ).find((s) => s.id === session.id);
    const transcript = async (id: string) =>
      (
        (await api('GET', `/api/v1/sessions/${id}/messages?limit=500`)).json.messages as {
          content: string;
        }[]
      ).map((message) => message.content);
    const says = (id: string, words: string, timeoutMs = 20_000) =>
      eventually(async () => (await transcript(id)).some((c) => c.includes(words)), timeoutMs);
    const send = (id: string, text: string, key: string) =>
      api('POST', `/api/v1/sessions/${id}/messages`, { text, admission_key: key });
    const agentsRunning = () => childrenOf(server?.child.pid ?? 0).length;

    // A slow agent: create answers while it starts; the prompt runs once it is up.
    const before = Date.now();
    const slow = await create('slow', 'hello slow');
    expect(Date.now() - before).toBeLessThan(4_500);
    expect(slow.admission).toBe('queued');
    expect(slow.session.state).toBe('starting');
    expect((await sessionView(slow.session))?.state).toBe('starting');
    writeFileSync(gate, '');
    await says(slow.session.id, 'You said: hello slow', 30_000);
    expect((await sessionView(slow.session))?.failure).toBeNull();

    // Idle stop, then resume with session/load: the agent remembers the earlier prompt.
    const remembering = await create('demo', 'remember the apples');
    await says(remembering.session.id, 'You said: remember the apples');
    await eventually(() => agentsRunning() === 0, 20_000);
    expect(await sessionView(remembering.session)).toMatchObject({
      state: 'idle',
      failure: null,
    });
    expect((await send(remembering.session.id, '/recall', 'recall-1')).status).toBeLessThan(300);
    await says(remembering.session.id, 'Earlier in this conversation: “remember the apples”');
    expect((await transcript(remembering.session.id)).join('\n')).not.toContain(FRESH_NOTE);

    // An agent without loadSession starts fresh, and the transcript says so.
    const forgetful = await create('forgetful', 'remember the pears');
    await says(forgetful.session.id, 'You said: remember the pears');
    await eventually(() => agentsRunning() === 0, 20_000);
    expect((await send(forgetful.session.id, '/recall', 'recall-2')).status).toBeLessThan(300);
    await says(forgetful.session.id, 'Nothing was said earlier in this conversation.');
    await says(forgetful.session.id, FRESH_NOTE);

    // A message queued behind a waiting turn when Clarion stops runs after the restart.
    const busy = await create('demo', '/permission');
    await eventually(async () => (await sessionView(busy.session))?.state !== 'starting', 20_000);
    const queued = await send(busy.session.id, 'after the restart', 'queued-1');
    expect(queued).toMatchObject({ status: 202, json: { outcome: 'queued' } });
    await server.stop();
    server = await startServing(env);
    api = clarionApi(server.url, ADMIN_TOKEN);
    await says(busy.session.id, 'You said: after the restart', 30_000);
    expect((await api('GET', `/api/v1/sessions/${busy.session.id}/queue`)).json).toEqual({
      items: [],
    });
  }, 180_000);
});
