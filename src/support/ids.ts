import { randomUUID } from 'node:crypto';

/** Where new row and request identities come from; tests use sequential IDs. */
export interface IdSource {
  next(): string;
}

export const uuidSource: IdSource = { next: () => randomUUID() };
