import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KyselyPlugin } from 'kysely';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createUser } from './accounts.js';
import {
  CLARIFICATION_TYPE,
  activePendingIdByFingerprintQuery,
  hasActiveClarificationQuery,
} from './clarification.js';
import { claimBundleQuery } from './clarification-claims.js';
import { compiledStatement } from './compiled.js';
import type { RepoContext } from './context.js';
import { openStore, type Store } from './open.js';
import { insertToken } from './tokens.js';

const byHashAndKinds = compiledStatement(
  'compiled test',
  (ctx: RepoContext, hash: string, ...kinds: string[]) =>
    ctx.db
      .selectFrom('api_tokens')
      .select(['token_hash', 'kind'])
      .where('token_hash', '=', hash)
      .where('kind', 'in', kinds as never[]),
);

describe('compiledStatement', () => {
  let dataDir: string;
  let store: Store | undefined;

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'clarion-compiled-'));
  });

  afterEach(async () => {
    await store?.close();
    store = undefined;
    await rm(dataDir, { recursive: true, force: true });
  });

  async function seeded(plugins: KyselyPlugin[] = []): Promise<Store> {
    store = await openStore({ driver: 'sqlite', dataDir }, { plugins });
    const user = await createUser(store, { name: 'someone' });
    await insertToken(store, { userId: user.id, kind: 'user', tokenHash: 'h1' });
    await insertToken(store, { userId: user.id, kind: 'agent', tokenHash: 'h2' });
    return store;
  }

  it('binds each call its own values into the text compiled once', async () => {
    const ctx = await seeded();
    const compile = vi.spyOn(ctx.db, 'selectFrom');
    expect(await byHashAndKinds(ctx, '2', 'h1', 'user', 'agent')).toEqual([
      { token_hash: 'h1', kind: 'user' },
    ]);
    expect(await byHashAndKinds(ctx, '2', 'h2', 'user', 'agent')).toEqual([
      { token_hash: 'h2', kind: 'agent' },
    ]);
    expect(await byHashAndKinds(ctx, '1', 'h2', 'user')).toEqual([]);
    // Built for the shapes not seen before in this process, never again for a seen one.
    const builds = compile.mock.calls.length;
    await byHashAndKinds(ctx, '2', 'h1', 'agent', 'user');
    expect(compile.mock.calls.length).toBe(builds);
  });

  it('builds with the real values when the connection has plugins', async () => {
    const plugin: KyselyPlugin = {
      transformQuery: (args) => args.node,
      transformResult: (args) => Promise.resolve(args.result),
    };
    const spy = vi.spyOn(plugin, 'transformQuery');
    const ctx = await seeded([plugin]);
    spy.mockClear();
    expect(await byHashAndKinds(ctx, '1', 'h1', 'user')).toEqual([
      { token_hash: 'h1', kind: 'user' },
    ]);
    expect(spy).toHaveBeenCalled();
  });

  it("writes the one-row LIMIT of the ask's pending-rows reads into their text, never binds it", async () => {
    const ctx = await seeded();
    // SQLite plans a bound LIMIT with its value, so each execution would prepare the statement again.
    for (const query of [
      activePendingIdByFingerprintQuery(ctx, 'session', 'fingerprint'),
      hasActiveClarificationQuery(ctx, 'session'),
    ]) {
      const { sql: text, parameters } = query.compile();
      expect(text.match(/ limit 1\b/gi)).toHaveLength(2);
      expect(text).not.toMatch(/limit \?/i);
      expect(parameters).not.toContain(1);
    }
  });

  it("writes the claim's message type into its text, never binds it", async () => {
    const ctx = await seeded();
    // The pending-rows index names the type; SQLite judges a bound type against it by its value.
    const { sql: text, parameters } = claimBundleQuery(ctx, {
      pendingId: 'pending',
      sessionId: 'session',
      turnId: 'turn',
      status: 'answered',
      responses: new Map([['q1', 'yes']]),
      rejectReason: '',
      respondedAt: 'now',
      respondedBy: { user_id: 'someone', name: 'Someone', surface: 'rest' },
    }).compile();
    expect(text).toContain(`"type" = '${CLARIFICATION_TYPE}'`);
    expect(parameters).not.toContain(CLARIFICATION_TYPE);
    expect(text).not.toMatch(/limit \?/i);
  });
});
