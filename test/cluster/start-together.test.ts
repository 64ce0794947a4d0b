/**
 * Three real `clarion serve` processes started at the same moment on one
 * empty PostgreSQL database, as a compose file or a deployment starts its
 * replicas: every one serves, and the database holds one admin and one
 * workspace. (`test/store/simultaneous-start.test.ts` races the two start-up
 * steps that failed here, schema and bootstrap, directly and repeatedly.)
 * And a replica that starts while another runs leaves the sign-in link that
 * one printed working: only a start alone on the database ends the links
 * earlier starts printed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startServing, type Serving } from '../support/clarion-process.js';
import { freshDatabase, type TestDatabase } from '../support/databases.js';
import { redeemSignIn, sessionCookieSet } from '../support/browser-sign-in.js';
import { eventually } from '../support/clarification-harness.js';
import { readStore } from '../support/replicas.js';

const ADMIN_TOKEN = 'start-together-admin-token-0123456789';

describe('replicas started together on an empty PostgreSQL', () => {
  let database: TestDatabase | undefined;
  const servers: Serving[] = [];

  afterEach(async () => {
    for (const server of servers.splice(0)) {
      if (server.child.exitCode === null && server.child.signalCode === null) await server.stop();
    }
    await database?.dispose();
    database = undefined;
  });

  it('all serve, over one admin and one workspace', async () => {
    database = await freshDatabase('postgres');
    const { target } = database;
    if (target.driver !== 'postgres') throw new Error('postgres only');
    const started = await Promise.allSettled(
      ['a', 'b', 'c'].map((id) =>
        startServing({
          DATABASE_URL: target.url,
          CLARION_ADMIN_TOKEN: ADMIN_TOKEN,
          CLARION_REPLICA_ID: `together-${id}`,
        }),
      ),
    );
    for (const result of started) if (result.status === 'fulfilled') servers.push(result.value);
    expect(started.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
    for (const server of servers) {
      const health = await fetch(`${server.url}/healthz`);
      expect(health.status).toBe(200);
      const whoami = await fetch(`${server.url}/api/v1/me`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      expect(whoami.status).toBe(200);
    }
    const counts = await readStore(target, async (store) => ({
      admins: (await store.db.selectFrom('users').select('id').where('is_admin', '=', 1).execute())
        .length,
      workspaces: (await store.db.selectFrom('workspaces').select('id').execute()).length,
    }));
    expect(counts).toEqual({ admins: 1, workspaces: 1 });
  });

  it('a replica that starts while another runs leaves the sign-in link that one printed working', async () => {
    database = await freshDatabase('postgres');
    const { target } = database;
    if (target.driver !== 'postgres') throw new Error('postgres only');
    const start = (id: string) =>
      startServing({ DATABASE_URL: target.url, CLARION_REPLICA_ID: `links-${id}` });
    const first = await start('a');
    servers.push(first);
    const printedLink = () => /Sign in \(one-time link\): (\S+)/.exec(first.output().stdout)?.[1];
    await eventually(() => printedLink() !== undefined);
    const printed = printedLink() ?? '';
    servers.push(await start('b'));

    const url = new URL(printed);
    const redeemed = await redeemSignIn(
      (path, init) => fetch(`${first.url}${path}`, init),
      url.searchParams.get('token') ?? '',
      { origin: first.url },
    );
    expect(redeemed.status).toBe(200);
    expect(sessionCookieSet(redeemed)).toBeDefined();
  });
});
