/**
 * The server's VAPID pair is made once and kept: a restart and a second
 * server on the same database get the same pair, so browsers' subscriptions
 * (bound to its public key) stay valid. Both drivers.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startWebPush } from '../../src/notify/index.js';
import { loadVapidKeys, VAPID_KEY_NAME } from '../../src/notify/vapid.js';
import { claimServerKey, getServerKey, openStore, type Store } from '../../src/store/index.js';
import { DRIVERS, freshDatabase, type TestDatabase } from '../support/databases.js';
import { fakeClock, sequentialIds } from '../support/fakes.js';

describe.each(DRIVERS)('server keys on %s', (driver) => {
  let database: TestDatabase;
  let stores: Store[];

  async function open(): Promise<Store> {
    const store = await openStore(database.target, { clock: fakeClock(), ids: sequentialIds() });
    stores.push(store);
    return store;
  }

  beforeEach(async () => {
    database = await freshDatabase(driver, { migrated: true });
    stores = [];
  });

  afterEach(async () => {
    for (const store of stores) await store.close();
    await database.dispose();
  });

  it('keeps the first value written under a name', async () => {
    const store = await open();
    expect(await getServerKey(store, 'k')).toBeUndefined();
    expect(await claimServerKey(store, 'k', 'first')).toBe('first');
    expect(await claimServerKey(store, 'k', 'second')).toBe('first');
    expect(await getServerKey(store, 'k')).toBe('first');
  });

  it('makes a P-256 pair at first start and returns the same pair after a restart', async () => {
    const first = await open();
    const keys = await loadVapidKeys(first);
    expect(Buffer.from(keys.publicKey, 'base64url')).toHaveLength(65);
    expect(Buffer.from(keys.privateKey, 'base64url')).toHaveLength(32);
    await first.close();
    stores = [];

    const restarted = await open();
    expect(await loadVapidKeys(restarted)).toEqual(keys);
  });

  it('gives two servers starting at once on one database one pair', async () => {
    const [a, b] = [await open(), await open()];
    const pairs = await Promise.all([loadVapidKeys(a), loadVapidKeys(b), loadVapidKeys(a)]);
    expect(new Set(pairs.map((pair) => JSON.stringify(pair))).size).toBe(1);
    expect(await getServerKey(a, VAPID_KEY_NAME)).toBe(JSON.stringify(pairs[0]));
  });

  it('refuses a stored value that is not a key pair, rather than replacing it', async () => {
    const store = await open();
    await claimServerKey(store, VAPID_KEY_NAME, JSON.stringify({ publicKey: 'short' }));
    await expect(loadVapidKeys(store)).rejects.toThrow('not a P-256 key pair');
    expect(await getServerKey(store, VAPID_KEY_NAME)).toBe(JSON.stringify({ publicKey: 'short' }));
  });

  it('gives the composition root the sender and the stored public key', async () => {
    const store = await open();
    const keys = await loadVapidKeys(store);
    const push = await startWebPush(store, {
      clock: fakeClock(),
      publicOrigin: 'http://192.168.1.20:7420',
    });
    expect(push.vapidPublicKey).toBe(keys.publicKey);
    expect(push.sender.kind).toBe('web_push');
    expect(push).toMatchObject({ subject: 'mailto:clarion@localhost', subjectUsable: false });
  });
});
