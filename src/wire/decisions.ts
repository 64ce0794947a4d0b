/**
 * The decision log (`GET /api/v1/decisions`): every decision a person made on
 * what an agent asked, with who made it, where and when, newest first.
 */
import { z } from 'zod';
import { responder, timestamp } from './common.js';
import { MAX_RECORD_ID_CHARS } from './limits.js';
import { decisionPageQuery } from './list-queries.js';
import { textProblem } from './text.js';
import { consentOptionKind } from './user-input.js';

export const DECISION_OUTCOMES = [
  'answered',
  'skipped',
  'cancelled',
  'allowed',
  'rejected',
  'done',
  'sent',
  'declined',
] as const;

export const DECISION_KINDS = ['question', 'consent', 'action', 'form'] as const;
export type DecisionKind = (typeof DECISION_KINDS)[number];

export const decisionEntry = z
  .object({
    message_id: z.string(),
    session_id: z.string(),
    task_id: z.string(),
    task_title: z.string(),
    /** The session was deleted since; its decisions stay in the log, its transcript is gone. */
    session_deleted: z.boolean(),
    kind: z.enum(DECISION_KINDS),
    /** The question's prompt, or the consent, action or form request's title. */
    subject: z.string(),
    outcome: z.enum(DECISION_OUTCOMES),
    /**
     * The chosen labels and typed text, the chosen option (what it does in
     * Clarion's words, with the agent's label when it says more, and a
     * Reject's reason, quoted), or a Skip's reason; may be empty. A form's is always
     * empty: what it held went to the agent, and the log, like the
     * transcript, keeps only that it was sent or declined.
     */
    detail: z.string(),
    /**
     * A consent an earlier "Always allow" rule of `responded_by` answered, so
     * no person was asked this time (`always_rule` `applied`); a rule this
     * choice set is `always_rule` `set`.
     */
    remembered: z.boolean(),
    /** A consent's chosen option kind: what the choice did, whatever its label said. */
    option_kind: consentOptionKind.nullable(),
    /**
     * `set`: this choice created an "Always allow" rule, so that tool runs
     * without asking from now on; `applied`: an earlier rule answered.
     */
    always_rule: z.enum(['set', 'applied']).nullable(),
    responded_by: responder,
    decided_at: timestamp,
  })
  .meta({ id: 'DecisionEntry' });
export type DecisionEntry = z.infer<typeof decisionEntry>;

export const decisionListReply = z
  .object({ decisions: z.array(decisionEntry), next_cursor: z.string().nullable() })
  .meta({ id: 'DecisionList' });
export type DecisionListReply = z.infer<typeof decisionListReply>;

const RFC3339 = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/i;

/**
 * Any RFC 3339 date-time as a row version (UTC, nine fractional digits), so it
 * compares with stored versions as plain text; `undefined` when it is not one
 * or names no real instant (Feb 30, hour 25).
 */
export function rowVersionOf(value: string): string | undefined {
  const match = RFC3339.exec(value);
  if (!match) return undefined;
  const [, whole = '', fraction = '', zone = 'Z'] = match;
  const ms = Date.parse(`${whole}${zone.toUpperCase()}`);
  if (Number.isNaN(ms)) return undefined;
  // Date.parse rolls Feb 30 over to Mar 2; a round trip of the date and time catches that.
  const local = new Date(Date.parse(`${whole}Z`)).toISOString().slice(0, 19);
  if (local !== whole) return undefined;
  return `${new Date(ms).toISOString().slice(0, 19)}.${fraction.padEnd(9, '0')}Z`;
}

const recordIdFilter = z
  .string()
  .min(1, 'must not be empty')
  .max(MAX_RECORD_ID_CHARS, `must be at most ${MAX_RECORD_ID_CHARS} characters`)
  .refine((value) => textProblem(value) === undefined, { error: 'must be storable text' });

const instantFilter = z
  .string()
  .transform((value, ctx) => {
    const version = rowVersionOf(value);
    if (version === undefined) {
      ctx.addIssue({ code: 'custom', message: 'must be an RFC 3339 date-time' });
      return z.NEVER;
    }
    return version;
  })
  .meta({ override: { type: 'string', format: 'date-time' } });

/**
 * The decision log's query: its page, then filters, every one optional and
 * all of them combined. `since` is inclusive, `until` exclusive, both on the
 * time the decision was recorded. Strict like every list's query: a misspelt
 * filter (`taskid`) is refused, never dropped, since dropping it would answer
 * with the whole log.
 */
export const decisionListQuery = decisionPageQuery
  .extend({
    task_id: recordIdFilter.optional().describe('Only decisions in this task'),
    kind: z.enum(DECISION_KINDS).optional().describe('Only this kind of decision'),
    user_id: recordIdFilter.optional().describe('Only decisions this person made'),
    since: instantFilter.optional().describe('Only decisions at or after this RFC 3339 time'),
    until: instantFilter.optional().describe('Only decisions before this RFC 3339 time'),
  })
  .refine((query) => !query.since || !query.until || query.since < query.until, {
    path: ['until'],
    error: 'must be later than since',
  });
export type DecisionListQuery = z.infer<typeof decisionListQuery>;
