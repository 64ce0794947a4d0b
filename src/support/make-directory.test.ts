import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeDirectory } from './make-directory.js';

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
