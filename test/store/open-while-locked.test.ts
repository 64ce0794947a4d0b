/**
 * Opening the SQLite store while another process holds its write lock (a
 * `clarion sign-in-link` writing its link, a backup tool) never stops the
 * event loop: every wait for that lock is the driver's asynchronous one, from
 * the first statement on. better-sqlite3's own default (a 5 s busy wait
 * inside the call) would freeze the process for as long as the lock is held.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { SQLITE_FILE, openStore, type Store } from '../../src/store/index.js';
import { holdSqliteLock } from '../support/lock-holder.js';

const LOCK_HELD_MS = 2_500;
/** Far below the lock: a loaded machine's pauses, never a busy wait. */
const LONGEST_STALL_MS = 1_000;

let dataDir: string | undefined;
let store: Store | undefined;

afterEach(async () => {
  await store?.close();
  store = undefined;
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** The longest gap between ticks of a 10 ms interval while `work` runs. */
async function longestStall<T>(work: () => Promise<T>): Promise<{ value: T; stallMs: number }> {
  let last = performance.now();
  let stallMs = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    stallMs = Math.max(stallMs, now - last);
    last = now;
  }, 10);
  try {
    const value = await work();
    stallMs = Math.max(stallMs, performance.now() - last);
    return { value, stallMs };
  } finally {
    clearInterval(ticker);
  }
}

it('opens the store while another process holds the write lock, without stopping the event loop', async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'clarion-open-locked-'));
  await (await openStore({ driver: 'sqlite', dataDir })).close();

  const held = await holdSqliteLock(join(dataDir, SQLITE_FILE), LOCK_HELD_MS);
  const opened = await longestStall(() => openStore({ driver: 'sqlite', dataDir: dataDir ?? '' }));
  store = opened.value;

  expect(opened.stallMs).toBeLessThan(LONGEST_STALL_MS);
  await held.released;
  await expect(store.ping()).resolves.toBeUndefined();
});
