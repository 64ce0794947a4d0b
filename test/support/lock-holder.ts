/**
 * Another process holding SQLite's write lock: a child node process opens the
 * same file with better-sqlite3, begins an exclusive transaction and keeps it
 * open for `heldMs`, as a second server or a backup tool would.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';

export interface HeldLock {
  /** Resolves once the holder has let go. */
  readonly released: Promise<void>;
}

/** Resolves once the other process holds the lock. */
export async function holdSqliteLock(file: string, heldMs: number): Promise<HeldLock> {
  const holder = spawn(
    process.execPath,
    [
      '-e',
      `const Database = require(process.argv[1]);
       const db = new Database(process.argv[2]);
       db.exec('BEGIN EXCLUSIVE');
       process.stdout.write('locked\\n');
       setTimeout(() => { db.exec('ROLLBACK'); db.close(); }, Number(process.argv[3]));`,
      createRequire(import.meta.url).resolve('better-sqlite3'),
      file,
      String(heldMs),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const released = new Promise<void>((resolve) => {
    holder.once('exit', () => {
      resolve();
    });
  });
  await new Promise<void>((resolve, reject) => {
    holder.stdout.once('data', () => {
      resolve();
    });
    void released.then(() => {
      reject(new Error('the lock holder exited before locking'));
    });
  });
  return { released };
}
