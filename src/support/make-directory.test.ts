import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeDirectory } from './make-directory.js';

/** Paths `existsSync` says are missing once, as if another process made them just after. */
const madeMeanwhile = vi.hoisted(() => new Set<string>());
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  return {
    ...fs,
    existsSync: (path: string) => (madeMeanwhile.delete(path) ? false : fs.existsSync(path)),
  };
});

describe('makeDirectory', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'clarion-mkdir-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('creates every missing component and leaves existing ones alone', async () => {
    const deep = join(dir, 'a', 'b', 'c');
    makeDirectory(deep, 0o700);
    expect((await stat(deep)).isDirectory()).toBe(true);
    expect((await stat(join(dir, 'a'))).mode & 0o777).toBe(0o700);
    makeDirectory(deep);
    expect((await stat(deep)).isDirectory()).toBe(true);
  });

  // Two servers started at once on a fresh data directory: the one that lost the race must
  // go on to find the other's lock, not fail on the directory the other just made.
  it('takes a directory another process made between its look and its mkdir', async () => {
    const data = join(dir, 'data');
    makeDirectory(data);
    madeMeanwhile.add(data);
    makeDirectory(data, 0o700);
    expect((await stat(data)).isDirectory()).toBe(true);
  });

  it('still refuses a file another process made in its place', async () => {
    const data = join(dir, 'data');
    await writeFile(data, 'not a directory');
    madeMeanwhile.add(data);
    expect(() => {
      makeDirectory(data);
    }).toThrow(/EEXIST/);
  });

  it('throws what the file system says under a file', async () => {
    const file = join(dir, 'a-file');
    await writeFile(file, 'not a directory');
    expect(() => {
      makeDirectory(join(file, 'data'));
    }).toThrow(/ENOTDIR/);
  });

  // Node's own recursive mkdir spins forever here; this must return, and refuse.
  it.runIf(process.platform === 'linux')('refuses a directory under /proc at once', () => {
    expect(() => {
      makeDirectory('/proc/clarion-data/x');
    }).toThrow(/ENOENT/);
  });
});
