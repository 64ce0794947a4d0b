import { describe, expect, it } from 'vitest';
import { StorageUnavailableError, type StorageFaultReason } from '../store/index.js';
import { explain } from './explain.js';

describe('explain', () => {
  const engine = (code: string, message: string) => Object.assign(new Error(message), { code });
  const faults: [StorageFaultReason, Error, RegExp][] = [
    ['lock_busy', engine('SQLITE_BUSY', 'database is locked'), /another process held/],
    ['disk_full', engine('SQLITE_FULL', 'database or disk is full'), /disk .* is full/],
    ['io_error', engine('SQLITE_IOERR', 'disk I/O error'), /could not be read or written/],
    ['read_only', engine('25006', 'read-only transaction'), /must be able to write it/],
    ['unreachable', engine('ECONNRESET', 'read ECONNRESET'), /stopped answering/],
  ];

  it.each(faults)(
    'tells a storage fault (%s) met after the database opened as the operator’s, not a bug',
    (reason, cause, advice) => {
      const line = explain(new StorageUnavailableError(reason, cause));
      expect(line).not.toMatch(/unexpected/);
      expect(line).toMatch(/^database unavailable during start-up: /);
      expect(line).toMatch(advice);
      expect(line).toContain(cause.message);
    },
  );

  it('tells a database damaged under a start-up step as that, not as a bug', () => {
    for (const code of ['SQLITE_CORRUPT', 'SQLITE_CORRUPT_INDEX', 'XX001']) {
      const line = explain(engine(code, 'database disk image is malformed'));
      expect(line).not.toMatch(/unexpected/);
      expect(line).toMatch(/^the database is damaged: database disk image is malformed.*backup/);
    }
  });

  it('still calls anything it does not know a bug', () => {
    expect(explain(new TypeError('x is undefined'))).toBe(
      'unexpected start-up failure: x is undefined',
    );
  });
});
