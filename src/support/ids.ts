import { v7 } from 'uuid';

/** Where new row and request identities come from; tests use sequential IDs. */
export interface IdSource {
  next(): string;
}

/**
 * UUIDv7 (RFC 9562): milliseconds first, then 74 random bits, so an ID made
 * later sorts later. Every primary key and the pending-ID indexes then grow
 * at their right edge; random (v4) IDs sent each insert to another page of
 * an ever larger tree, which made asking slower the more history a store
 * held (bench/RESULTS.md, "History").
 */
export const uuidSource: IdSource = { next: () => v7() };
