/**
 * A cancel is bounded even against an agent that ignores it, in the built
 * server with real processes, on both databases: an agent that takes a
 * prompt, never answers it and ignores `session/cancel` is stopped once the
 * cancel grace has passed, the turn ends as cancelled and the session is idle
 * again (no failure); the next message, or one queued behind the wedged
 * turn, starts a new agent and is answered. So is one queued behind a prompt
 * the agent never took (it stopped reading), once the cancel's grace passed.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect } from 'vitest';
import { eventually } from '../support/clarification-harness.js';
import { startServing, type Serving } from '../support/clarion-process.js';
import { DRIVERS, freshDatabase, inOrder, type TestDatabase } from '../support/databases.js';
import { writeFixtures } from './supervisor-fixtures.js';
import { clarionApi, groupGone } from './supervisor-support.js';

const ADMIN_TOKEN = 'cancel-grace-test-admin-token-0123456789';
const CANCEL_GRACE_S = 1;
const STOP_GRACE_S = 1;
/**
 * The cancel grace, the stop's grace and kill wait (2 s), and room for a
 * loaded machine; without the bound the session stays `running` for good.
 */
const LEAVES_RUNNING_WITHIN_MS = (CANCEL_GRACE_S + STOP_GRACE_S + 2) * 1000 + 6_000;

interface SessionJson {
  id: string;
  task_id: string;
  state: string;
  failure: unknown;
}

// Within one database the tests run in order: they share its `database`, `server` and `dir`.
const it = inOrder;

// The two databases at once: each run waits out cancel and stop graces on its own server.
describe.concurrent.each(DRIVERS)('a cancel the agent ignores, on %s', (driver) => {
  let database: TestDatabase | undefined;
  let server: Serving | undefined;
  let dir: string | undefined;

  afterEach(async () => {
    await server?.stop();
    server = undefined;
    await database?.dispose();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Serves with the deaf agent as profile `deaf`; its pids go to a file. */
  async function serve() {
    database = await freshDatabase(driver, { migrated: true });
    dir = mkdtempSync(join(tmpdir(), 'clarion-cancel-grace-'));
    const fixtures = writeFixtures(dir);
    const pidFile = join(dir, 'deaf.pids');
    server = await startServing({
      ...(database.target.driver === 'sqlite'
        ? { CLARION_DATA_DIR: database.target.dataDir }
        : { DATABASE_URL: database.target.url, CLARION_DATA_DIR: dir }),
      CLARION_ADMIN_TOKEN: ADMIN_TOKEN,
      CLARION_AGENT_START_TIMEOUT_S: '20',
      CLARION_AGENT_STOP_GRACE_S: String(STOP_GRACE_S),
      CLARION_AGENT_CANCEL_GRACE_S: String(CANCEL_GRACE_S),
      CLARION_AGENT_PROFILES: JSON.stringify({
        deaf: { command: process.execPath, args: [fixtures.deaf], env: { PID_FILE: pidFile } },
        untaking: {
          command: process.execPath,
          args: [fixtures.untaking],
          env: { PID_FILE: pidFile, DEAF_AGENT: fixtures.deaf },
        },
      }),
    });
    const api = clarionApi(server.url, ADMIN_TOKEN);
    const listed = (kind: string) =>
      readFileSync(pidFile, 'utf8')
        .split('\n')
        .flatMap((line) => new RegExp(`^${kind} (\\d+)$`).exec(line)?.slice(1) ?? [])
        .map(Number);
    const pids = () => listed('agent');
    const untakers = () => listed('untaking');
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

    return { api, pids, untakers, sessionView, says, send };
  }

  it('stops the agent after the grace, ends the turn cancelled, and a new agent takes the next message', async () => {
    const { api, pids, sessionView, says, send } = await serve();
    // The agent takes the prompt and never answers it.
    const created = await api('POST', '/api/v1/tasks', {
      title: 'deaf',
      agent_profile: 'deaf',
      prompt: '/hang first',
    });
    expect(created.status).toBe(201);
    const session = created.json.session as SessionJson;
    await eventually(async () => (await sessionView(session))?.state === 'running', 20_000);
    await eventually(() => pids().length === 1, 5_000);
    const [first] = pids();

    // Cancel: the agent ignores it; the grace passes, it is stopped and the turn ends.
    const started = Date.now();
    expect((await api('POST', `/api/v1/sessions/${session.id}/cancel`)).status).toBe(202);
    await eventually(
      async () => (await sessionView(session))?.state !== 'running',
      LEAVES_RUNNING_WITHIN_MS,
    );
    const leftRunningMs = Date.now() - started;
    // Not before the grace: the agent had its chance to end the turn itself.
    expect(leftRunningMs).toBeGreaterThanOrEqual(CANCEL_GRACE_S * 1000);
    expect(await sessionView(session)).toMatchObject({ state: 'idle', failure: null });
    await says(session.id, 'Cancelled');
    expect(groupGone(first ?? 0)).toBe(true);

    // The next message starts a new agent, which answers it.
    const next = await send(session.id, 'are you back?', 'next-1');
    expect(next.status).toBeLessThan(300);
    await says(session.id, 'You said: are you back?');
    expect(pids()).toHaveLength(2);
    expect(pids()[1]).not.toBe(first);

    // A message queued behind a wedged turn runs once the cancel ended it, with nothing else sent.
    expect((await send(session.id, '/hang second', 'hang-2')).status).toBeLessThan(300);
    await eventually(async () => (await sessionView(session))?.state === 'running', 20_000);
    const queued = await send(session.id, 'queued behind it', 'queued-1');
    expect(queued).toMatchObject({ status: 202, json: { outcome: 'queued' } });
    const second = pids()[1];
    expect((await api('POST', `/api/v1/sessions/${session.id}/cancel`)).status).toBe(202);
    await says(session.id, 'You said: queued behind it', LEAVES_RUNNING_WITHIN_MS + 20_000);
    expect(groupGone(second ?? 0)).toBe(true);
    expect(pids()).toHaveLength(3);
    await eventually(async () => (await sessionView(session))?.state === 'idle', 20_000);
    expect(await sessionView(session)).toMatchObject({ state: 'idle', failure: null });
    expect((await api('GET', `/api/v1/sessions/${session.id}/queue`)).json).toEqual({ items: [] });
  }, 120_000);
  it('runs the queue with a new agent when the cancel grace passed before the agent took the prompt', async () => {
    const { api, pids, untakers, sessionView, says, send } = await serve();
    // The first agent stops reading once its session is open: the task's prompt is never taken.
    const created = await api('POST', '/api/v1/tasks', {
      title: 'untaking',
      agent_profile: 'untaking',
      prompt: 'never taken',
    });
    expect(created.status).toBe(201);
    const session = created.json.session as SessionJson;
    await eventually(async () => (await sessionView(session))?.state === 'running', 20_000);
    const [untaker] = untakers();
    const queued = await send(session.id, 'queued behind it', 'queued-1');
    expect(queued).toMatchObject({ status: 202, json: { outcome: 'queued' } });

    // The cancel waits behind the untaken prompt; its grace passes, the agent is stopped (which
    // breaks the cancel's wait: no error) and its prompt refused; the queue goes on by itself
    // with a new agent.
    expect((await api('POST', `/api/v1/sessions/${session.id}/cancel`)).status).toBe(202);
    await says(session.id, 'The agent did not take this message', LEAVES_RUNNING_WITHIN_MS);
    await says(session.id, 'You said: queued behind it', LEAVES_RUNNING_WITHIN_MS + 20_000);
    expect(groupGone(untaker ?? 0)).toBe(true);
    expect(pids()).toHaveLength(1);
    await eventually(async () => (await sessionView(session))?.state === 'idle', 20_000);
    expect(await sessionView(session)).toMatchObject({ state: 'idle', failure: null });
    expect((await api('GET', `/api/v1/sessions/${session.id}/queue`)).json).toEqual({ items: [] });
  }, 120_000);
});
