/** Shapes several parts of the wire share: states, timestamps, record IDs. */
import { z } from 'zod';
import { DECISION_SURFACES, ROW_STATUSES, SESSION_STATES } from './constants.js';
import { codePoints, isBlankText } from './text.js';

/**
 * Required text a person reads (a name, a title, a message, a prompt): at
 * most `max` characters after trimming, and not blank, where only whitespace
 * or invisible characters are blank too. Whether its characters are storable
 * is checked once for the whole body (`textIssues`), on every surface.
 *
 * A character is a code point, as JSON Schema's `maxLength` (the document
 * shows) counts it, so an emoji is one character as a Latin letter is, not
 * two UTF-16 units.
 */
export const visibleText = (max: number) =>
  z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .refine((value) => codePoints(value) <= max, {
      error: `must be at most ${max} characters`,
      abort: true,
    })
    .refine((value) => value === '' || !isBlankText(value), {
      error: 'must not be only whitespace or invisible characters',
    })
    .meta({ maxLength: max });

/**
 * A person's message or prompt: kept exactly as typed, since indentation and
 * line breaks carry meaning in code and lists; otherwise as `visibleText`
 * (at most `max` characters, and something in it shows).
 */
export const verbatimText = (max: number) =>
  z
    .string()
    .min(1, 'must not be empty')
    .refine((value) => codePoints(value) <= max, {
      error: `must be at most ${max} characters`,
      abort: true,
    })
    .refine((value) => !isBlankText(value), {
      error: 'must not be only whitespace or invisible characters',
    })
    .meta({ maxLength: max });

/** RFC 3339 with nine fractional digits: the row version clients compare (DESIGN §4). */
export const timestamp = z.string().describe('RFC 3339 timestamp with nine fractional digits');

export const sessionState = z.enum(SESSION_STATES).meta({ id: 'SessionState' });
export type SessionState = z.infer<typeof sessionState>;

/** What a session waits on a person for, if anything. */
export const pendingAction = z
  .enum(['clarification', 'consent', 'form', 'action'])
  .nullable()
  .meta({ id: 'PendingAction' });
export type PendingAction = z.infer<typeof pendingAction>;

export const rowStatus = z.enum(ROW_STATUSES).meta({ id: 'RowStatus' });
export type RowStatus = z.infer<typeof rowStatus>;

/**
 * Who made a decision and where: always a person, never an agent (DESIGN §6).
 * `name` is the person's name when they decided, kept as the record.
 */
export const responder = z
  .object({ user_id: z.string(), name: z.string(), surface: z.enum(DECISION_SURFACES) })
  .meta({ id: 'Responder' });
export type Responder = z.infer<typeof responder>;
