/**
 * Tokens across real restarts of `clarion serve` (issue 17, finding 4): a
 * rotated `CLARION_ADMIN_TOKEN`, an earlier start's sign-in link and an agent
 * token left by a server that was SIGKILLed are all refused by the next start.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { issueToken } from '../../src/auth/index.js';
import { openStore, type DatabaseTarget, type Driver } from '../../src/store/index.js';
import { eventually } from '../support/clarification-harness.js';
import { databaseEnv, startServing, type Serving } from '../support/clarion-process.js';
import { DRIVERS, freshDatabase, type TestDatabase } from '../support/databases.js';

const TOKEN_A = 'first-admin-token-0123456789';
const TOKEN_B = 'rotated-admin-token-0123456789';

function envFor(target: DatabaseTarget, adminToken: string): Record<string, string> {
  return { ...databaseEnv(target), CLARION_ADMIN_TOKEN: adminToken };
}

function get(url: string, token?: string): Promise<Response> {
  return fetch(url, token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } });
}

async function agentTokenCount(target: DatabaseTarget): Promise<number> {
  const store = await openStore(target);
  try {
    const rows = await store.db
      .selectFrom('api_tokens')
      .select('id')
      .where('kind', '=', 'agent')
      .execute();
    return rows.length;
  } finally {
    await store.close();
  }
}

describe.each(DRIVERS)('tokens across restarts on %s', (driver: Driver) => {
  let database: TestDatabase | undefined;
  let serving: Serving | undefined;

  afterEach(async () => {
    if (serving) await serving.stop();
    serving = undefined;
    await database?.dispose();
    database = undefined;
  });

  it('refuses the rotated admin token and the earlier start’s sign-in link', async () => {
    database = await freshDatabase(driver, { migrated: true });
    const first = await startServing(envFor(database.target, TOKEN_A));
    expect((await get(`${first.url}/api/v1/me`, TOKEN_A)).status).toBe(200);
    const exited = await first.stop();
    const link = /Sign in \(one-time link\): (\S+)/.exec(exited.stdout)?.[1];
    expect(link).toBeDefined();

    serving = await startServing(envFor(database.target, TOKEN_B));
    const { url } = serving;
    expect((await get(`${url}/api/v1/me`, TOKEN_A)).status).toBe(401);
    expect((await get(`${url}/api/v1/me`, TOKEN_B)).status).toBe(200);
    const old = new URL(link ?? '');
    const redeemed = await fetch(`${url}${old.pathname}${old.search}`, { redirect: 'manual' });
    expect(redeemed.status).toBe(303);
    expect(redeemed.headers.get('location')).toBe('/signed-out?reason=link_invalid');
    expect(redeemed.headers.get('set-cookie')).toBeNull();
  });

  it('revokes at start-up the agent tokens a killed server left behind', async () => {
    database = await freshDatabase(driver, { migrated: true });
    const doomed = await startServing(envFor(database.target, TOKEN_A));
    const created = await fetch(`${doomed.url}/api/v1/tasks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN_A}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'left behind', prompt: '/ask' }),
    });
    expect(created.status).toBe(201);
    await eventually(async () => {
      const pending = (await (await get(`${doomed.url}/api/v1/pending`, TOKEN_A)).json()) as {
        bundles: unknown[];
      };
      return pending.bundles.length === 1;
    }, 20_000);
    doomed.child.kill('SIGKILL');
    expect((await doomed.exited).signal).toBe('SIGKILL');
    expect(await agentTokenCount(database.target)).toBe(1);

    // One more left by "the earlier run" whose secret the test knows, to ask the next one with.
    const store = await openStore(database.target);
    const session = await store.db
      .selectFrom('task_sessions')
      .select('id')
      .executeTakeFirstOrThrow();
    const admin = await store.db.selectFrom('users').select('id').executeTakeFirstOrThrow();
    const leftover = await issueToken(store, {
      kind: 'agent',
      userId: admin.id,
      sessionId: session.id,
    });
    await store.close();

    serving = await startServing(envFor(database.target, TOKEN_A));
    expect((await get(`${serving.url}/api/v1/me`, leftover.secret)).status).toBe(401);
  });
});
