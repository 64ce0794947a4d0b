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

export interface HeldProcessLock extends HeldLock {
  /** Lets go before `heldMs` (the holder ends; its lock goes with it), resolving as `released` does. */
  release(): Promise<void>;
}

/** Resolves once the other process holds the lock. */
export async function holdSqliteLock(file: string, heldMs: number): Promise<HeldProcessLock> {
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
  return {
    released,
    release: () => {
      if (holder.exitCode === null && holder.signalCode === null) holder.kill();
      return released;
    },
  };
}

export interface HeldDataDir {
  readonly pid: number;
  /** Writes the PID file, as the holder does just after taking the lock. */
  writePidFile(): void;
  stop(): Promise<void>;
}

/**
 * Another process holding a SQLite data directory's server lock as a server
 * holds it, caught in the moment after it took the lock and before it wrote
 * its PID file: a server started at the same moment finds it so.
 */
export async function holdDataDirLock(dir: string): Promise<HeldDataDir> {
  const holder = spawn(
    process.execPath,
    [
      '-e',
      `const Database = require(process.argv[1]);
       const { writeFileSync } = require('node:fs');
       const { join } = require('node:path');
       const db = new Database(join(process.argv[2], 'server.lock'), { timeout: 0 });
       db.pragma('locking_mode = EXCLUSIVE');
       db.exec('BEGIN EXCLUSIVE');
       db.exec('CREATE TABLE IF NOT EXISTS holder (pid INTEGER NOT NULL)');
       db.exec('DELETE FROM holder');
       db.prepare('INSERT INTO holder (pid) VALUES (?)').run(process.pid);
       db.exec('COMMIT');
       process.stdout.write('locked\\n');
       process.stdin.once('data', () => {
         writeFileSync(join(process.argv[2], 'server.pid'), process.pid + '\\n');
       });`,
      createRequire(import.meta.url).resolve('better-sqlite3'),
      dir,
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const exited = new Promise<void>((resolve) => {
    holder.once('exit', () => {
      resolve();
    });
  });
  await new Promise<void>((resolve, reject) => {
    holder.stdout.once('data', () => {
      resolve();
    });
    void exited.then(() => {
      reject(new Error('the data directory holder exited before locking'));
    });
  });
  return {
    pid: holder.pid ?? 0,
    writePidFile: () => holder.stdin.write('go\n'),
    stop: () => {
      holder.kill('SIGKILL');
      return exited;
    },
  };
}
