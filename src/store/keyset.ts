/**
 * Keyset pages over (created_at, id), oldest first (a transcript, a
 * workspace's tasks) or newest first (a transcript read from its end). A page after a cursor costs its own rows, not the ones
 * before, and one row read past the page says whether another follows,
 * without a count query.
 */
import { sql, type Expression, type SqlBool } from 'kysely';

/** Where a page ended: its last row's (created_at, id). */
export interface CreatedCursor {
  readonly createdAt: string;
  readonly id: string;
}

/**
 * The rows after `after`, for a query ordered by created_at, then id. The
 * bare bound on created_at lets an index on (…, created_at, id) start the
 * scan at the cursor; the OR alone left PostgreSQL a sort of the whole
 * session's rows.
 */
export function createdAfter(after: CreatedCursor): Expression<SqlBool> {
  const createdAt = sql.ref('created_at');
  return sql<SqlBool>`(${createdAt} >= ${after.createdAt} AND (${createdAt} > ${after.createdAt} OR ${sql.ref('id')} > ${after.id}))`;
}

/** The rows before `before`, for a query ordered by created_at, then id, both descending. */
export function createdBefore(before: CreatedCursor): Expression<SqlBool> {
  const createdAt = sql.ref('created_at');
  return sql<SqlBool>`(${createdAt} <= ${before.createdAt} AND (${createdAt} < ${before.createdAt} OR ${sql.ref('id')} < ${before.id}))`;
}

/** A page of `limit` from `rows`, read with `limit + 1`, and where the next one starts. */
export function splitPage<R extends { created_at: string; id: string }>(
  rows: readonly R[],
  limit: number,
): { rows: R[]; next: CreatedCursor | null } {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const next = rows.length > limit && last ? { createdAt: last.created_at, id: last.id } : null;
  return { rows: page, next };
}
