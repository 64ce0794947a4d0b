/**
 * The watch on running calls' tokens, on a real store and a fake clock: an
 * announced revocation is read at once, and one announced while a read runs
 * is read again after it, since that read may have begun before the
 * revocation.
 */
import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { issueToken } from './tokens.js';
import { silentLogger } from '../observability/index.js';
import { createUser, deleteTokenById, openStore, type Store } from '../store/index.js';
import type { RepeatingTimers } from '../support/index.js';
import { freshDatabase, type TestDatabase } from '../../test/support/databases.js';
import { CredentialWatch } from './credential-watch.js';

/** Timers whose repeats never come: only `recheck` reads. */
const stillTimers: RepeatingTimers = {
  setTimeout: () => ({ cancel: () => undefined }),
  every: () => ({ cancel: () => undefined }),
};

describe('CredentialWatch', () => {
  let database: TestDatabase;
  let store: Store;
  let watch: CredentialWatch;

  beforeEach(async () => {
    database = await freshDatabase('sqlite');
    store = await openStore(database.target);
    watch = new CredentialWatch({
      store,
      timers: stillTimers,
      intervalMs: 1_000,
      logger: silentLogger,
    });
  });

  afterEach(async () => {
    watch.close();
    await store.close();
    await database.dispose();
  });

  async function agentToken() {
    const user = await createUser(store, { name: 'Agent owner' });
    return issueToken(store, { kind: 'external_agent', userId: user.id, name: 'agent' });
  }

  it('reads at once when a revocation is announced', async () => {
    const issued = await agentToken();
    const lease = watch.watch(issued.secret);
    await deleteTokenById(store, issued.record.id);
    expect(lease.revoked.aborted).toBe(false);

    watch.recheck();
    await expect.poll(() => lease.revoked.aborted).toBe(true);
  });

  it('reads again after a read that began before the revocation', async () => {
    const issued = await agentToken();
    const lease = watch.watch(issued.secret);
    // The first read is queued before the revocation, the second announced while it runs.
    watch.recheck();
    const revoking = deleteTokenById(store, issued.record.id);
    watch.recheck();
    await revoking;
    await expect.poll(() => lease.revoked.aborted).toBe(true);
  });

  it('leaves a live token alone', async () => {
    const issued = await agentToken();
    const lease = watch.watch(issued.secret);
    watch.recheck();
    expect(await lease.live()).toBe(true);
    expect(lease.revoked.aborted).toBe(false);
  });

  /**
   * A browser's events socket reconnects (a phone waking, a network flap)
   * while another tab keeps the same cookie watched: each closed socket's
   * listener must go with its lease, not pile up on the token's signal.
   */
  it("keeps no released lease's listeners on a lease still held", async () => {
    const issued = await agentToken();
    const held = watch.watch(issued.secret);
    const released = Array.from({ length: 15 }, () => {
      const lease = watch.watch(issued.secret);
      lease.revoked.addEventListener('abort', () => undefined, { once: true });
      lease.release();
      return lease;
    });
    expect(getEventListeners(held.revoked, 'abort')).toHaveLength(0);

    await deleteTokenById(store, issued.record.id);
    watch.recheck();
    await expect.poll(() => held.revoked.aborted).toBe(true);
    // A lease taken after the revocation was found reads as revoked at once.
    expect(watch.watch(issued.secret).revoked.aborted).toBe(true);
    expect(released.some((lease) => lease.revoked.aborted)).toBe(false);
  });
});
