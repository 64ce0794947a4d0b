import { describe, expect, it } from 'vitest';
import {
  asStorageFault,
  storageFaultReason,
  StorageUnavailableError,
  type StorageFaultReason,
} from './faults.js';

function engineError(code: string, message = 'engine says no'): Error {
  return Object.assign(new Error(message), { code });
}

describe('storage faults', () => {
  const cases: [code: string, reason: StorageFaultReason | undefined][] = [
    ['SQLITE_BUSY', 'lock_busy'],
    ['SQLITE_BUSY_SNAPSHOT', 'lock_busy'],
    ['SQLITE_LOCKED', 'lock_busy'],
    ['SQLITE_FULL', 'disk_full'],
    ['SQLITE_IOERR_WRITE', 'io_error'],
    ['SQLITE_READONLY_DIRECTORY', 'read_only'],
    ['53100', 'disk_full'],
    ['58030', 'io_error'],
    ['08006', 'unreachable'],
    ['25P03', 'unreachable'],
    ['55P03', 'lock_busy'],
    ['ECONNREFUSED', 'unreachable'],
    // What a statement got wrong, or the caller's own timeout: not storage faults.
    ['SQLITE_CONSTRAINT_UNIQUE', undefined],
    ['SQLITE_BUSYNESS', undefined],
    ['23505', undefined],
    ['57014', undefined],
  ];

  it.each(cases)('reads %s as %s', (code, reason) => {
    expect(storageFaultReason(engineError(code))).toBe(reason);
  });

  it.each([
    ['Connection terminated unexpectedly', 'unreachable'],
    ['Connection terminated', 'unreachable'],
    ['timeout exceeded when trying to connect', 'unreachable'],
    ['relation "x" does not exist', undefined],
  ] as const)('reads pg’s uncoded "%s" as %s', (message, reason) => {
    expect(storageFaultReason(new Error(message))).toBe(reason);
  });

  it('keeps the cause, its code and its words', () => {
    const cause = engineError('SQLITE_FULL', 'database or disk is full');
    const fault = asStorageFault(cause);
    expect(fault).toBeInstanceOf(StorageUnavailableError);
    expect(fault).toMatchObject({
      code: 'storage_unavailable',
      reason: 'disk_full',
      engineCode: 'SQLITE_FULL',
      cause,
    });
    expect((fault as Error).message).toBe(
      'storage unavailable (disk full): database or disk is full (SQLITE_FULL)',
    );
    const other = new Error('syntax error');
    expect(asStorageFault(other)).toBe(other);
  });
});
