/**
 * `mkdir -p` that ends. Node's recursive `mkdirSync` never returns for a path
 * under a file system that refuses new entries with ENOENT while its parent
 * exists (`/proc/clarion` spins at full CPU), so a start-up given such a data
 * directory would hang silently. This walks up to the nearest existing
 * ancestor, at most once per path component, then creates each missing one;
 * whatever refuses is thrown as the file system said it. A directory another
 * process made between the look and the `mkdir` (two servers started at once
 * on a fresh data directory) is taken as made.
 */
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

export function makeDirectory(
  path: string,
  mode?: number,
  /** How it looks whether a path exists; tests make it see one late, as a race does. */
  exists: (path: string) => boolean = existsSync,
): void {
  const missing: string[] = [];
  let current = resolve(path);
  while (!exists(current)) {
    missing.push(current);
    const parent = dirname(current);
    if (parent === current) break;
    current = parent;
  }
  for (const directory of missing.reverse()) {
    try {
      mkdirSync(directory, mode === undefined ? undefined : { mode });
    } catch (error) {
      if (!((error as NodeJS.ErrnoException).code === 'EEXIST' && isDirectory(directory))) {
        throw error;
      }
    }
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
