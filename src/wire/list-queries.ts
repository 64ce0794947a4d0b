/**
 * The query strings of the lists, parsed by one strict schema per route. The
 * paged lists (`/pending`, `/tasks`, a transcript, the decision log) read
 * `limit` in decimal digits only (no `0x10`, `1e1` or ` 10`, which `Number`
 * would take); the unpaged ones read no key at all. On every list a key the
 * route does not read (a misspelt `limitt`, a `limit` sent to a list that
 * has no pages) is refused, never dropped, since dropping it would answer
 * with a list the caller did not ask for.
 */
import { z } from 'zod';
import {
  DEFAULT_DECISION_PAGE,
  DEFAULT_PENDING_PAGE,
  DEFAULT_TASK_PAGE,
  DEFAULT_TRANSCRIPT_PAGE,
  MAX_CURSOR_CHARS,
  MAX_DECISION_PAGE,
  MAX_PENDING_PAGE,
  MAX_TASK_PAGE,
  MAX_TRANSCRIPT_PAGE,
} from './limits.js';

const DECIMAL = /^[0-9]+$/;

function pageLimit(defaultLimit: number, max: number) {
  const rule = `must be a whole number from 1 to ${max}, in decimal digits`;
  return (
    z
      .string()
      .refine((value) => DECIMAL.test(value) && Number(value) >= 1 && Number(value) <= max, {
        error: rule,
      })
      .transform(Number)
      .optional()
      .describe(`Items per page, 1 to ${max} (default ${defaultLimit})`)
      // A query string holds text, so it is parsed from one; a client generator should offer a
      // number all the same (`?limit=10` is what it sends either way).
      .meta({ override: { type: 'integer', minimum: 1, maximum: max } })
  );
}

/** `limit` and `cursor` of one paged list; a route with filters extends it. */
export function pageQuery(defaultLimit: number, max: number) {
  return z.strictObject({
    limit: pageLimit(defaultLimit, max),
    cursor: z
      .string()
      .min(1, 'must not be empty')
      .max(MAX_CURSOR_CHARS, `must be at most ${MAX_CURSOR_CHARS} characters`)
      .optional()
      .describe('next_cursor of the previous page'),
  });
}

export const pendingListQuery = pageQuery(DEFAULT_PENDING_PAGE, MAX_PENDING_PAGE);
export const taskListQuery = pageQuery(DEFAULT_TASK_PAGE, MAX_TASK_PAGE);
/** A list without pages (a task's sessions, the queue, your tokens, …): no key is read. */
export const unpagedListQuery = z.strictObject({});
/** The ends a transcript is read from; `oldest_first` unless the caller names the other. */
export const TRANSCRIPT_ORDERS = ['oldest_first', 'newest_first'] as const;
export type TranscriptOrder = (typeof TRANSCRIPT_ORDERS)[number];
/**
 * A transcript's page: oldest first by default, or newest first to read its
 * end (what a person opens a session for) and page back from there. A cursor
 * pages only in the order that minted it.
 */
export const transcriptPageQuery = pageQuery(DEFAULT_TRANSCRIPT_PAGE, MAX_TRANSCRIPT_PAGE).extend({
  order: z
    .enum(TRANSCRIPT_ORDERS)
    .optional()
    .describe(
      'oldest_first (default) pages from the start; newest_first from the end back, each page newest first',
    ),
});
/** The decision log's page; `decisionListQuery` (decisions.ts) adds its filters. */
export const decisionPageQuery = pageQuery(DEFAULT_DECISION_PAGE, MAX_DECISION_PAGE);
