import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeDirectory } from './make-directory.js';

/** Says `path` is missing once, as if another process made it just after the look. */
function lateFor(path: string): (candidate: string) => boolean {
  let fooled = false;
  return (candidate) => {
    if (candidate === path && !fooled) {
      fooled = true;
      return false;
    }
    return existsSync(candidate);
  };
}

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
    makeDirectory(data, 0o700, lateFor(data));
    expect((await stat(data)).isDirectory()).toBe(true);
  });

  it('still refuses a file another process made in its place', async () => {
    const data = join(dir, 'data');
    await writeFile(data, 'not a directory');
    expect(() => {
      makeDirectory(data, undefined, lateFor(data));
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
