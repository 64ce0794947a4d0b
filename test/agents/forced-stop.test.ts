/**
 * A stop forced by a second signal, in the built server with real agent
 * processes: the first SIGINT starts the graceful stop (here held by a long
 * `CLARION_DRAIN_DELAY_S`), a second one kills every agent's process group at
 * once and the process exits non-zero, promptly. Neither an agent that runs
 * on after its stdin closes (a wrapper that outlives the demo agent) nor one
 * still starting (whose child ignores SIGTERM) is left running. One signal
 * alone still stops gracefully.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { demoAgentPath } from '../../src/agents/profiles.js';
import { eventually } from '../support/clarification-harness.js';
import { startServing, type Serving } from '../support/clarion-process.js';
import { freshDatabase, type TestDatabase } from '../support/databases.js';
import { bearerApi } from '../support/in-process-server.js';
import { waitingItems } from '../support/waiting-items.js';
import { writeFixtures } from './supervisor-fixtures.js';
import { clarionApi, groupGone } from './supervisor-support.js';

const ADMIN_TOKEN = 'forced-stop-admin-token-0123456789';
/** The built server starts the demo agent before it can ask. */
const AGENT_WAIT_MS = 30_000;
/** Far below the drain delay: an exit within it was forced, not waited out. */
const FORCED_EXIT_MS = 10_000;

/** Every pid a fixture wrote to its file (the first leads the agent's group). */
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

describe('clarion serve told to stop by signals', () => {
  let database: TestDatabase | undefined;
  let server: Serving | undefined;
  let dir: string | undefined;
  const groups: number[] = [];

  afterEach(async () => {
    if (server?.child.exitCode === null && server.child.signalCode === null) await server.stop();
    server = undefined;
    // What a failing run left behind must not outlive it.
    for (const pgid of groups.splice(0)) {
      try {
        process.kill(-pgid, 'SIGKILL');
      } catch {
        // Gone already, as it should be.
      }
    }
    await database?.dispose();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** A server with one agent asking (its wrapper outlives it) and one still starting. */
  async function serveWithAgents(drainDelayS: string) {
    database = await freshDatabase('sqlite');
    if (database.target.driver !== 'sqlite') throw new Error('sqlite expected');
    dir = mkdtempSync(join(tmpdir(), 'clarion-forced-stop-'));
    const fixtures = writeFixtures(dir);
    const files = { lingering: join(dir, 'lingering.pids'), stubborn: join(dir, 'stubborn.pids') };
    server = await startServing({
      CLARION_DATA_DIR: database.target.dataDir,
      CLARION_ADMIN_TOKEN: ADMIN_TOKEN,
      CLARION_DRAIN_DELAY_S: drainDelayS,
      CLARION_AGENT_START_TIMEOUT_S: '120',
      CLARION_AGENT_STOP_GRACE_S: '1',
      CLARION_AGENT_PROFILES: JSON.stringify({
        // The demo agent exits once its stdin closes; what it ran under does not.
        lingering: {
          command: '/bin/sh',
          args: ['-c', 'echo $$ >> "$PID_FILE"; "$NODE" "$DEMO_AGENT"; sleep 300'],
          env: { PID_FILE: files.lingering, NODE: process.execPath, DEMO_AGENT: demoAgentPath() },
        },
        stubborn: {
          command: process.execPath,
          args: [fixtures.stubborn],
          env: { PID_FILE: files.stubborn },
        },
      }),
    });
    const api = clarionApi(server.url, ADMIN_TOKEN);
    const asking = await api('POST', '/api/v1/tasks', {
      title: 'asks',
      agent_profile: 'lingering',
      prompt: '/ask',
    });
    expect(asking.status).toBe(201);
    const sessionId = (asking.json.session as { id: string }).id;
    await waitingItems(bearerApi(server.url, ADMIN_TOKEN), AGENT_WAIT_MS).pendingOf(sessionId);
    const starting = await api('POST', '/api/v1/tasks', {
      title: 'starts',
      agent_profile: 'stubborn',
      prompt: 'hi',
    });
    expect(starting.status).toBe(201);
    await eventually(() => pidsIn(files.stubborn).length === 2, 20_000);
    const pgids = [pidsIn(files.lingering)[0] ?? 0, pidsIn(files.stubborn)[0] ?? 0];
    groups.push(...pgids);
    for (const pgid of pgids) expect(groupGone(pgid)).toBe(false);
    return { server, pgids };
  }

  it('a second SIGINT kills every agent group and exits non-zero at once', async () => {
    const { server: running, pgids } = await serveWithAgents('60');
    running.child.kill('SIGINT');
    await eventually(() => running.output().stdout.includes('stopping: /healthz says draining'));
    const forcedAt = Date.now();
    running.child.kill('SIGINT');
    const exited = await Promise.race([
      running.exited,
      new Promise<undefined>((resolve) => {
        setTimeout(() => {
          resolve(undefined);
        }, FORCED_EXIT_MS);
      }),
    ]);
    expect(exited, 'still running after the second signal').toBeDefined();
    expect(Date.now() - forcedAt).toBeLessThan(FORCED_EXIT_MS);
    expect(exited).toMatchObject({ code: 1, signal: null });
    expect(exited?.stdout).toContain('a second SIGINT or SIGTERM forces it');
    expect(exited?.stdout).toMatch(/"agent_groups_killed":2.*stop forced by a second signal/);
    for (const pgid of pgids) {
      await eventually(() => groupGone(pgid), 2_000);
    }
  }, 120_000);

  it('one SIGINT still stops gracefully: exit 0, every agent group gone', async () => {
    const { server: running, pgids } = await serveWithAgents('1');
    running.child.kill('SIGINT');
    const exited = await running.exited;
    expect(exited).toMatchObject({ code: 0, signal: null });
    expect(exited.stdout).toContain('a second SIGINT or SIGTERM forces it');
    expect(exited.stdout).not.toContain('stop forced');
    for (const pgid of pgids) expect(groupGone(pgid)).toBe(true);
  }, 120_000);
});
