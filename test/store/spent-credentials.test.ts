/**
 * A server that runs for months prunes spent credentials as it goes, not
 * only at start-up: used and expired sign-in links, expired browser
 * sessions, answer links past their retention. On a fake clock, on SQLite
 * and a real PostgreSQL: a pass every interval, bounded batches, live
 * credentials untouched, two replicas pruning at once, and a stop that ends
 * it.
 */
import { sql, type CompiledQuery } from 'kysely';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { issueAnswerLinks } from '../../src/auth/answer-links.js';
import { startSpentCredentialPruning } from '../../src/auth/spent-credentials.js';
import {
  hashSecret,
  issueToken,
  redeemSignIn,
  resolveToken,
  SIGN_IN_TOKEN_TTL_MS,
} from '../../src/auth/tokens.js';
import { silentLogger } from '../../src/observability/logger.js';
import {
  createUser,
  deleteExpiredAnswerLinkBatchQuery,
  deleteSpentTokenBatchQuery,
  findAnswerLink,
  firstAdmin,
  listUserTokens,
  openStore,
  wallTimestamp,
  type Store,
} from '../../src/store/index.js';
import {
  ANSWER_LINK_RETAIN_EXPIRED_MS,
  BROWSER_SESSION_TTL_MS,
  SPENT_CREDENTIAL_PRUNE_INTERVAL_MS,
} from '../../src/tunables.js';
import { DRIVERS, freshDatabase, type TestDatabase } from '../support/databases.js';
import { ClockTimers, fakeClock, sequentialIds, type FakeClock } from '../support/fakes.js';
import { eventually } from '../support/clarification-harness.js';
import { startInProcessServer } from '../support/in-process-server.js';
import { seedSession } from '../support/seed.js';

const HOUR_MS = 60 * 60 * 1000;

describe.each(DRIVERS)('pruning spent credentials on %s', (driver) => {
  let database: TestDatabase;
  let store: Store;
  let clock: FakeClock;
  let timers: ClockTimers;
  let userId: string;

  beforeEach(async () => {
    database = await freshDatabase(driver, { migrated: true });
    clock = fakeClock();
    timers = new ClockTimers(clock);
    store = await openStore(database.target, { clock, ids: sequentialIds() });
    userId = (await createUser(store, { name: 'ada', isAdmin: true })).id;
  });

  afterEach(async () => {
    await store.close();
    await database.dispose();
  });

  const kinds = async () => (await listUserTokens(store, userId)).map((token) => token.kind);

  async function answerLink(expiresInMs: number): Promise<string> {
    const seeded = await seedSession(store, `task ${expiresInMs}`);
    const [secret] = await issueAnswerLinks(store, {
      userId,
      sessionId: seeded.session.id,
      itemKind: 'bundle',
      itemId: 'pending-1',
      expiresAt: wallTimestamp(clock, expiresInMs),
      choices: ['{}'],
    });
    if (secret === undefined) throw new Error('no link');
    return secret;
  }

  const linkKept = async (secret: string) =>
    (await findAnswerLink(store, hashSecret(secret))) !== undefined;

  it('prunes on its interval while the server runs, and leaves what still works', async () => {
    const personal = await issueToken(store, { kind: 'user', userId });
    const used = await issueToken(store, { kind: 'sign_in', userId });
    const signedIn = await store.transaction((tx) => redeemSignIn(tx, used.secret));
    if (!signedIn.ok) throw new Error('not redeemed');
    await issueToken(store, { kind: 'sign_in', userId, ttlMs: HOUR_MS });
    await issueToken(store, { kind: 'browser', userId, ttlMs: HOUR_MS });
    await issueToken(store, { kind: 'sign_in', userId });
    const oldLink = await answerLink(-ANSWER_LINK_RETAIN_EXPIRED_MS - HOUR_MS);
    const recentLink = await answerLink(HOUR_MS);
    expect((await kinds()).sort()).toEqual(
      ['browser', 'browser', 'sign_in', 'sign_in', 'sign_in', 'user'].sort(),
    );

    const pruning = startSpentCredentialPruning({ store, timers, logger: silentLogger });
    // Past the hour-long expiries, but before the first pass: nothing went yet.
    clock.advance(2 * HOUR_MS);
    expect(await kinds()).toHaveLength(6);
    expect(await linkKept(oldLink)).toBe(true);

    timers.advance(SPENT_CREDENTIAL_PRUNE_INTERVAL_MS);
    await pruning.pass();
    // The used link, the expired link and the expired session went; the rest still work.
    expect((await kinds()).sort()).toEqual(['browser', 'sign_in', 'user']);
    expect(await resolveToken(store, personal.secret, 'bearer')).toMatchObject({ userId });
    expect(await resolveToken(store, signedIn.browserSecret, 'cookie')).toMatchObject({ userId });
    expect(await linkKept(oldLink)).toBe(false);
    expect(await linkKept(recentLink)).toBe(true);

    // A later interval's pass takes what expired since: the day-long link, the recent answer link.
    clock.advance(SIGN_IN_TOKEN_TTL_MS + ANSWER_LINK_RETAIN_EXPIRED_MS);
    timers.advance(SPENT_CREDENTIAL_PRUNE_INTERVAL_MS);
    await pruning.pass();
    expect((await kinds()).sort()).toEqual(['browser', 'user']);
    expect(await linkKept(recentLink)).toBe(false);
    clock.advance(BROWSER_SESSION_TTL_MS);
    timers.advance(SPENT_CREDENTIAL_PRUNE_INTERVAL_MS);
    await pruning.pass();
    expect(await kinds()).toEqual(['user']);

    await pruning.stop();
    expect(timers.active).toBe(0);
  });

  it('deletes in bounded batches, a backlog over several passes', async () => {
    for (let index = 0; index < 25; index += 1) {
      await issueToken(store, { kind: 'browser', userId, ttlMs: HOUR_MS });
    }
    clock.advance(2 * HOUR_MS);
    const pruning = startSpentCredentialPruning({
      store,
      timers,
      logger: silentLogger,
      batchRows: 4,
      batchesPerPass: 3,
    });
    // A pass is at most 3 statements of at most 4 rows; the first finds no used link.
    expect(await pruning.pass()).toBe(8);
    expect(await kinds()).toHaveLength(17);
    expect(await pruning.pass()).toBe(8);
    expect(await pruning.pass()).toBe(8);
    expect(await pruning.pass()).toBe(1);
    expect(await pruning.pass()).toBe(0);
    await pruning.stop();
  });

  it('lets two replicas prune at once: each row goes once, and neither fails', async () => {
    const other = await openStore(database.target, { clock, ids: sequentialIds('other') });
    try {
      for (let index = 0; index < 40; index += 1) {
        await issueToken(store, { kind: 'sign_in', userId, ttlMs: HOUR_MS });
      }
      clock.advance(2 * HOUR_MS);
      const here = startSpentCredentialPruning({
        store,
        timers,
        logger: silentLogger,
        batchRows: 5,
      });
      const there = startSpentCredentialPruning({
        store: other,
        timers,
        logger: silentLogger,
        batchRows: 5,
      });
      const deleted = await Promise.all([here.pass(), there.pass(), here.pass(), there.pass()]);
      expect(deleted[0] + deleted[1]).toBe(40);
      expect(await kinds()).toEqual([]);
      expect(await here.pass()).toBe(0);
      await Promise.all([here.stop(), there.stop()]);
    } finally {
      await other.close();
    }
  });

  it('stops: no pass after it, and the stop waits for the pass running', async () => {
    await issueToken(store, { kind: 'browser', userId, ttlMs: HOUR_MS });
    clock.advance(2 * HOUR_MS);
    const pruning = startSpentCredentialPruning({ store, timers, logger: silentLogger });
    let ended = false;
    void pruning.pass().then(() => {
      ended = true;
    });
    await pruning.stop();
    expect(ended).toBe(true);
    // The pass ended at its next statement; nothing runs again, on the interval or asked.
    const left = await kinds();
    timers.advance(10 * SPENT_CREDENTIAL_PRUNE_INTERVAL_MS);
    expect(timers.active).toBe(0);
    expect(await pruning.pass()).toBe(0);
    expect(await kinds()).toEqual(left);
  });
});

describe.each(DRIVERS)('a running server on %s', (driver) => {
  it('prunes spent credentials on its interval while it runs, and stops cleanly', async () => {
    const running = await startInProcessServer(driver, 'an-admin-token-of-enough-length', {
      spentCredentialPruneIntervalMs: 50,
    });
    try {
      const { store } = running.server;
      const admin = await firstAdmin(store);
      if (!admin) throw new Error('no admin');
      const spent = () => issueToken(store, { kind: 'browser', userId: admin.id, ttlMs: -1 });
      const browsers = async () =>
        (await listUserTokens(store, admin.id)).filter((token) => token.kind === 'browser');
      await spent();
      await eventually(async () => (await browsers()).length === 0);
      await running.stop();
    } finally {
      await running.dispose();
    }
  });
});

describe.each(DRIVERS)("the prune's statements on %s", (driver) => {
  const LIVE_TOKENS = 20_000;
  let database: TestDatabase;
  let store: Store;

  beforeAll(async () => {
    database = await freshDatabase(driver, { migrated: true });
    store = await openStore(database.target);
    const user = await createUser(store, { name: 'ada', isAdmin: true });
    // Personal tokens and live sessions, which the prune must not read row by row.
    for (let start = 0; start < LIVE_TOKENS; start += 500) {
      const now = store.clock.timestamp();
      const rows = Array.from({ length: 500 }, (_, offset) => ({
        id: `live-${start + offset}`,
        user_id: user.id,
        kind: offset % 2 === 0 ? ('user' as const) : ('browser' as const),
        token_hash: `hash-${start + offset}`,
        task_session_id: null,
        expires_at: offset % 2 === 0 ? null : wallTimestamp(store.clock, BROWSER_SESSION_TTL_MS),
        used_at: null,
        created_at: now,
        updated_at: now,
        name: null,
        last_used_at: null,
      }));
      await store.db.insertInto('api_tokens').values(rows).execute();
    }
    // Answer links of items still waiting.
    const seeded = await seedSession(store, 'waiting');
    for (let start = 0; start < LIVE_TOKENS; start += 500) {
      const now = store.clock.timestamp();
      const rows = Array.from({ length: 500 }, (_, offset) => ({
        id: `link-${start + offset}`,
        token_hash: `link-hash-${start + offset}`,
        user_id: user.id,
        task_session_id: seeded.session.id,
        item_kind: 'bundle',
        item_id: `pending-${start + offset}`,
        choice: '{}',
        expires_at: wallTimestamp(store.clock, HOUR_MS),
        used_at: null,
        created_at: now,
      }));
      await store.db.insertInto('answer_links').values(rows).execute();
    }
    await store.refreshStatistics();
    if (driver === 'postgres') await sql`ANALYZE`.execute(store.db);
  });

  afterAll(async () => {
    await store.close();
    await database.dispose();
  });

  const plan = async (query: { compile(): CompiledQuery }) =>
    (await store.dialect.explain(store.db, query.compile())).join('\n');

  it('reads only spent rows, each through its own index', async () => {
    const now = wallTimestamp(store.clock);
    expect(await plan(deleteSpentTokenBatchQuery(store, 'used', now, 500))).toContain(
      'idx_api_tokens_used',
    );
    expect(await plan(deleteSpentTokenBatchQuery(store, 'expired', now, 500))).toContain(
      'idx_api_tokens_expires',
    );
    expect(await plan(deleteExpiredAnswerLinkBatchQuery(store, now, 500))).toContain(
      'idx_answer_links_expires',
    );
  });
});
