import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DataDirLockedError, LOCK_FILE, lockDataDir, PID_FILE } from './data-dir-lock.js';
import { SQLITE_FILE, StoreOpenError, openStore, unusableDataDir } from './open.js';

describe('the data directory lock', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'clarion-lock-'));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses a second holder at once, naming the first one’s PID, until released', () => {
    const first = lockDataDir(dir, 4242);
    const startedAt = Date.now();
    expect(() => lockDataDir(dir, 4343)).toThrow(DataDirLockedError);
    try {
      lockDataDir(dir, 4343);
    } catch (error) {
      expect(error).toMatchObject({ holderPid: 4242 });
      expect((error as Error).message).toMatch(/in use by another Clarion server \(PID 4242\)/);
    }
    // No busy wait: the refusal does not sit out a timeout.
    expect(Date.now() - startedAt).toBeLessThan(1_000);

    first.release();
    first.release();
    expect(existsSync(join(dir, PID_FILE))).toBe(false);
    const second = lockDataDir(dir, 4343);
    second.release();
  });

  it('takes over a stale PID file left by a holder that died', async () => {
    await writeFile(join(dir, PID_FILE), '999999\n');
    const lock = lockDataDir(dir, 4242);
    expect(await readFile(join(dir, PID_FILE), 'utf8')).toBe('4242\n');
    lock.release();
  });

  it('names the directory it cannot use', async () => {
    const file = join(dir, 'a-file');
    await writeFile(file, 'not a directory');
    expect(() => lockDataDir(join(file, 'data'))).toThrow(
      /data directory .*a-file\/data is not usable/,
    );
  });

  it('lets go of the lock and names the directory when it cannot write the PID file', async () => {
    // What a full disk does (ENOSPC), made here without one.
    await mkdir(join(dir, PID_FILE));
    expect(() => lockDataDir(dir, 4242)).toThrow(StoreOpenError);
    expect(() => lockDataDir(dir, 4242)).toThrow(/data directory .* is not usable: .*EISDIR/);
    await rm(join(dir, PID_FILE), { recursive: true });
    lockDataDir(dir, 4343).release();
  });

  it('names a damaged lock file as such, and says it may go', async () => {
    await writeFile(join(dir, LOCK_FILE), Buffer.alloc(8192, 0xab));
    expect(() => lockDataDir(dir)).toThrow(
      new RegExp(`lock file ${join(dir, LOCK_FILE)} is damaged.*remove it`),
    );
  });

  // Node's recursive mkdir never returns here: the start-up hung, silent, at full CPU.
  it.runIf(process.platform === 'linux')('refuses a directory under /proc at once', () => {
    expect(() => lockDataDir('/proc/clarion-data')).toThrow(
      /data directory \/proc\/clarion-data is not usable/,
    );
  });
});

describe('why a data directory is not usable', () => {
  const failure = (code: string, message: string) => Object.assign(new Error(message), { code });

  it('says the disk is full when it is', () => {
    for (const error of [
      failure('ENOSPC', 'ENOSPC: no space left on device, write'),
      failure('SQLITE_FULL', 'database or disk is full'),
    ]) {
      expect(unusableDataDir('/srv/clarion', '/srv/clarion/clarion.db', error).message).toMatch(
        /^data directory \/srv\/clarion is not usable: its disk is full \(free some space, then start again\): /,
      );
    }
  });

  it('names a damaged database file, and a backup as the way back', () => {
    for (const error of [
      failure('SQLITE_NOTADB', 'file is not a database'),
      failure('SQLITE_CORRUPT', 'database disk image is malformed'),
    ]) {
      expect(unusableDataDir('/srv/clarion', '/srv/clarion/clarion.db', error).message).toMatch(
        /^database file \/srv\/clarion\/clarion.db is damaged or is not a SQLite database: .*restore it from a backup/,
      );
    }
  });

  it('names a database file that is not one when the store opens it', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'clarion-damaged-'));
    try {
      await writeFile(join(dataDir, SQLITE_FILE), Buffer.alloc(8192, 0xab));
      await expect(openStore({ driver: 'sqlite', dataDir })).rejects.toThrow(
        new RegExp(`database file ${join(dataDir, SQLITE_FILE)} is damaged`),
      );
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('says the disk is likely full when SQLite could not grow its shared memory', () => {
    const error = failure('SQLITE_IOERR_SHMSIZE', 'disk I/O error');
    expect(unusableDataDir('/srv/clarion', '/srv/clarion/clarion.db', error).message).toMatch(
      /most likely because its disk is full.*SQLITE_IOERR_SHMSIZE/,
    );
  });
});
