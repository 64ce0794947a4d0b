import { randomFillSync } from 'node:crypto';
import { v7 } from 'uuid';

/** Where new row and request identities come from; tests use sequential IDs. */
export interface IdSource {
  next(): string;
}

/** Random bytes for 256 IDs at a time. */
const POOL_BYTES = 4096;
const ID_BYTES = 16;

/**
 * UUIDv7 (RFC 9562): milliseconds first, then 74 random bits, so an ID made
 * later sorts later. Every primary key and the pending-ID indexes then grow
 * at their right edge; random (v4) IDs sent each insert to another page of
 * an ever larger tree, which made asking slower the more history a store
 * held (bench/RESULTS.md, "History").
 *
 * Within one millisecond, and while the clock steps back, the 32 bits after
 * the timestamp count up from a random start (RFC 9562 §6.2, method 1), as
 * `uuid`'s own `v7()` does. Its random bytes come from a pool here: `v7()`
 * draws each ID's bytes through WebCrypto's `getRandomValues`, about 5 µs an
 * ID against 0.2 µs, several times per ask.
 */
export function createUuidSource(now: () => number = Date.now): IdSource {
  const pool = new Uint8Array(POOL_BYTES);
  let used = POOL_BYTES;
  let msecs = -Infinity;
  let seq = 0;
  return {
    next() {
      if (used + ID_BYTES > POOL_BYTES) {
        randomFillSync(pool);
        used = 0;
      }
      const random = pool.subarray(used, used + ID_BYTES);
      used += ID_BYTES;
      const at = now();
      if (at > msecs) {
        msecs = at;
        // 31 random bits: the counter has room to count before it carries into the time.
        seq =
          (((random[6] ?? 0) & 0x7f) << 24) |
          ((random[7] ?? 0) << 16) |
          ((random[8] ?? 0) << 8) |
          (random[9] ?? 0);
      } else {
        seq = (seq + 1) | 0;
        if (seq === 0) msecs += 1;
      }
      return v7({ random, msecs, seq });
    },
  };
}

export const uuidSource: IdSource = createUuidSource();
