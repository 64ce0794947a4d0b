/**
 * The decision log (`GET /api/v1/decisions`): every decision a person made on
 * what an agent asked, with who made it, where and when, newest first.
 */
import { z } from 'zod';
import { responder, timestamp } from './common.js';

export const DECISION_OUTCOMES = [
  'answered',
  'skipped',
  'cancelled',
  'allowed',
  'rejected',
  'done',
] as const;

export const decisionEntry = z
  .object({
    message_id: z.string(),
    session_id: z.string(),
    task_id: z.string(),
    task_title: z.string(),
    kind: z.enum(['question', 'consent', 'action']),
    /** The question's prompt, or the consent or action request's title. */
    subject: z.string(),
    outcome: z.enum(DECISION_OUTCOMES),
    /** The chosen labels and typed text, the chosen option, or a skip reason; may be empty. */
    detail: z.string(),
    /** A consent answered by an earlier "always" of `responded_by`. */
    remembered: z.boolean(),
    responded_by: responder,
    decided_at: timestamp,
  })
  .meta({ id: 'DecisionEntry' });
export type DecisionEntry = z.infer<typeof decisionEntry>;

export const decisionListReply = z
  .object({ decisions: z.array(decisionEntry), next_cursor: z.string().nullable() })
  .meta({ id: 'DecisionList' });
export type DecisionListReply = z.infer<typeof decisionListReply>;
