/**
 * Agent profiles in the built server, on both databases (issue 13): the
 * listing names commands and variable names but never a value; `pass_env`
 * hands only the named variables of Clarion's environment to the agent; the
 * agent works in the profile's `cwd`, else the task's, else Clarion's; a bad
 * task `cwd` is a clear 400 and stores nothing. The agent reports what it
 * sees on stderr and exits, so its failure quotes it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startServing, type Serving } from '../support/clarion-process.js';
import { DRIVERS, freshDatabase, type TestDatabase } from '../support/databases.js';
import { clarionApi } from './supervisor-support.js';

const ADMIN_TOKEN = 'profiles-test-admin-token-0123456789';
const REPORT = [
  '-c',
  'echo "key=$FIXTURE_KEY other=${NOT_PASSED:-none} set=$FROM_PROFILE pwd=$(pwd)" >&2; exit 9',
];

describe.each(DRIVERS)('agent profiles on %s', (driver) => {
  let database: TestDatabase | undefined;
  let server: Serving | undefined;
  let dir: string | undefined;

  afterEach(async () => {
    await server?.stop();
    server = undefined;
    await database?.dispose();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('lists no secrets, passes only the named variables, and starts agents where they should work', async () => {
    database = await freshDatabase(driver, { migrated: true });
    dir = mkdtempSync(join(tmpdir(), 'clarion-profiles-'));
    const pinned = mkdtempSync(join(dir, 'pinned-'));
    server = await startServing({
      ...(database.target.driver === 'sqlite'
        ? { CLARION_DATA_DIR: database.target.dataDir }
        : { DATABASE_URL: database.target.url, CLARION_DATA_DIR: dir }),
      CLARION_ADMIN_TOKEN: ADMIN_TOKEN,
      FIXTURE_KEY: 'k-123',
      NOT_PASSED: 'leaked',
      CLARION_AGENT_PROFILES: JSON.stringify({
        report: {
          command: '/bin/sh',
          args: REPORT,
          env: { FROM_PROFILE: 'p-secret' },
          pass_env: ['FIXTURE_KEY'],
        },
        pinned: { command: '/bin/sh', args: REPORT, cwd: pinned },
      }),
    });
    const api = clarionApi(server.url, ADMIN_TOKEN);

    const listed = await api('GET', '/api/v1/agent-profiles');
    expect(listed.status).toBe(200);
    const profiles = listed.json.profiles as { name: string }[];
    expect(profiles.find((profile) => profile.name === 'report')).toEqual({
      name: 'report',
      command: '/bin/sh',
      args: REPORT,
      pass_env: ['FIXTURE_KEY'],
      env_names: ['FROM_PROFILE'],
      cwd: null,
    });
    expect(profiles.map((profile) => profile.name).sort()).toEqual(['demo', 'pinned', 'report']);
    expect(JSON.stringify(listed.json)).not.toMatch(/p-secret|k-123/);

    const taskCount = async () =>
      ((await api('GET', '/api/v1/tasks')).json.tasks as unknown[]).length;
    for (const [cwd, message, code] of [
      ['relative/dir', 'must be an absolute path', 'cwd_not_absolute'],
      [join(dir, 'missing'), 'must be an existing directory', 'cwd_not_directory'],
    ] as const) {
      const refused = await api('POST', '/api/v1/tasks', { title: 't', prompt: 'hi', cwd });
      expect(refused.status).toBe(400);
      expect(refused.json).toMatchObject({
        code: 'invalid_request',
        details: [{ path: 'cwd', message, code }],
      });
    }
    const unknown = await api('POST', '/api/v1/tasks', { title: 't', agent_profile: 'gone' });
    expect(unknown.json).toMatchObject({
      code: 'invalid_request',
      details: [{ path: 'agent_profile', code: 'unknown_profile' }],
    });
    expect(await taskCount()).toBe(0);

    const failureOf = async (body: Record<string, unknown>) => {
      const created = await api('POST', '/api/v1/tasks', { title: 't', prompt: 'hi', ...body });
      expect(created.status).toBe(201);
      return (created.json.session as { failure: { message: string } }).failure.message;
    };
    expect(await failureOf({ agent_profile: 'report', cwd: dir })).toContain(
      `key=k-123 other=none set=p-secret pwd=${dir}`,
    );
    expect(await failureOf({ agent_profile: 'report' })).toContain(`pwd=${process.cwd()}`);
    expect(await failureOf({ agent_profile: 'pinned', cwd: dir })).toContain(
      `key= other=none set= pwd=${pinned}`,
    );
  }, 60_000);
});
