import type { Kysely } from 'kysely';
import type { Clock } from '../support/index.js';
import type { IdSource } from '../support/index.js';
import type { Dialect } from './dialect.js';
import type { Database } from './tables.js';

/** What every repository function runs against: a connection or an open transaction. */
export interface RepoContext {
  readonly db: Kysely<Database>;
  readonly dialect: Dialect;
  readonly clock: Clock;
  readonly ids: IdSource;
}

export type Metadata = Record<string, unknown>;

/** Parses a row's JSON metadata; a row is never trusted to hold an object. */
export function parseMetadata(text: string): Metadata {
  const value: unknown = JSON.parse(text);
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Metadata)
    : {};
}
