/**
 * `clarion sign-in-link` as real processes (issue 14): beside a running
 * server (it must not need the server's data-dir lock, and the running server
 * honours the link at once), with the server stopped (the next start must not
 * revoke it), for a named user, and its refusals (unknown user, no database).
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { DatabaseTarget, Driver } from '../../src/store/index.js';
import { browserSignIn, sendTo } from '../support/browser-sign-in.js';
import { runCommand, startServing, type Exited, type Serving } from '../support/clarion-process.js';
import { DRIVERS, freshDatabase, type TestDatabase } from '../support/databases.js';

const ADMIN_TOKEN = 'cli-link-admin-token-0123456789';

function envFor(target: DatabaseTarget): Record<string, string> {
  const base: Record<string, string> =
    target.driver === 'sqlite'
      ? { CLARION_DATA_DIR: target.dataDir }
      : { DATABASE_URL: target.url, CLARION_DATA_DIR: join(tmpdir(), 'clarion-unused') };
  return { ...base, CLARION_ADMIN_TOKEN: ADMIN_TOKEN, CLARION_LOG_LEVEL: 'silent' };
}

/** Runs `clarion sign-in-link …` to its end, killed if it outlives a generous bound. */
function signInLink(env: Record<string, string>, args: string[] = []): Promise<Exited> {
  return runCommand(['sign-in-link', ...args], env);
}

/** Opens the link's path and query on `serverUrl` as a fresh browser; its session cookie, or undefined. */
function redeem(serverUrl: string, link: string): Promise<string | undefined> {
  return browserSignIn(sendTo(serverUrl), link, serverUrl);
}

async function whoHas(serverUrl: string, cookie: string | undefined): Promise<string | undefined> {
  if (cookie === undefined) return undefined;
  const response = await fetch(`${serverUrl}/api/v1/me`, {
    headers: { cookie: `clarion_session=${cookie}` },
  });
  if (response.status !== 200) return undefined;
  return ((await response.json()) as { user: { name: string } }).user.name;
}

function linkOf(exited: Exited): string {
  expect(exited.code, exited.stderr).toBe(0);
  const lines = exited.stdout.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/auth\/sign-in\?token=clr_[\w-]+$/);
  return lines[0] ?? '';
}

describe.each(DRIVERS)('clarion sign-in-link on %s', (driver: Driver) => {
  let database: TestDatabase | undefined;
  let serving: Serving | undefined;

  afterEach(async () => {
    if (serving) await serving.stop();
    serving = undefined;
    await database?.dispose();
    database = undefined;
  });

  it('mints a link the running server honours at once, without its data-dir lock', async () => {
    database = await freshDatabase(driver, { migrated: true });
    const env = envFor(database.target);
    serving = await startServing(env);
    const exited = await signInLink(env);
    const link = linkOf(exited);
    expect(exited.stderr).toMatch(/for admin, valid until \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\n/);
    expect(await whoHas(serving.url, await redeem(serving.url, link))).toBe('admin');
    // Once only.
    expect(await redeem(serving.url, link)).toBeUndefined();

    // --user by name, for a user the admin made.
    const created = await fetch(`${serving.url}/api/v1/users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bob' }),
    });
    expect(created.status).toBe(201);
    const bobs = linkOf(await signInLink(env, ['--user', 'bob']));
    expect(await whoHas(serving.url, await redeem(serving.url, bobs))).toBe('bob');
  });

  it('mints a link while the server is stopped that works after the next start', async () => {
    database = await freshDatabase(driver, { migrated: true });
    const env = envFor(database.target);
    const first = await startServing(env);
    await first.stop();
    const link = linkOf(await signInLink(env));

    serving = await startServing(env);
    expect(await whoHas(serving.url, await redeem(serving.url, link))).toBe('admin');
  });

  it('refuses an unknown user, bad arguments and port 0 with a non-zero exit and no link', async () => {
    database = await freshDatabase(driver, { migrated: true });
    const env = envFor(database.target);
    await (await startServing(env)).stop();
    const unknown = await signInLink(env, ['--user', 'nobody']);
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toContain('no user is named "nobody"');
    for (const args of [['--user'], ['--who', 'admin'], ['admin']]) {
      const bad = await signInLink(env, args);
      expect(bad.code).toBe(2);
      expect(bad.stdout).toBe('');
      expect(bad.stderr).toContain('clarion sign-in-link: takes only --user NAME');
      expect(bad.stderr).toContain('usage: clarion');
    }
    // Port 0 is whatever the server picked as it started: a link naming it would reach nothing.
    const portZero = await signInLink({ ...env, CLARION_PORT: '0' });
    expect(portZero.code).toBe(1);
    expect(portZero.stdout).toBe('');
    expect(portZero.stderr).toContain('CLARION_PORT=0 names no port a link can point at');
    expect(portZero.stderr).toContain('CLARION_PUBLIC_ORIGIN');
  });
});

describe('clarion sign-in-link without a database', () => {
  it('says to start the server once, and creates nothing', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'clarion-no-db-'));
    try {
      const exited = await signInLink({ CLARION_DATA_DIR: join(dataDir, 'absent') });
      expect(exited.code).toBe(1);
      expect(exited.stdout).toBe('');
      expect(exited.stderr).toContain('run `clarion serve` once first');
      expect(existsSync(join(dataDir, 'absent'))).toBe(false);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
