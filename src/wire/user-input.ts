/**
 * Consent and action requests on the wire (DESIGN §7): the views the registry
 * publishes and lists, and what a person sends back. The requests themselves
 * live in the server's memory only.
 */
import { z } from 'zod';
import { responder, timestamp } from './common.js';
import { MAX_ANSWER_TEXT_CODE_POINTS, MAX_CONSENT_OPTION_ID_CHARS } from './limits.js';
import { codePoints } from './text.js';
import {
  FORM_DECISIONS,
  formContent,
  formDecision,
  formSchema,
  type FormContent,
  type FormDecision,
} from './forms.js';

export const CONSENT_OPTION_KINDS = [
  'allow_once',
  'allow_always',
  'reject_once',
  'reject_always',
] as const;
export const consentOptionKind = z.enum(CONSENT_OPTION_KINDS);
export type ConsentOptionKind = z.infer<typeof consentOptionKind>;

/** One choice the agent offers for a consent, passed through unchanged. */
export const consentOption = z
  .object({ option_id: z.string(), label: z.string(), kind: consentOptionKind })
  .meta({ id: 'ConsentOption' });
export type ConsentOption = z.infer<typeof consentOption>;

export const ACTION_DECISIONS = ['done', 'skip'] as const;
export const actionDecision = z.enum(ACTION_DECISIONS);
export type ActionDecision = z.infer<typeof actionDecision>;

export const USER_INPUT_STATUSES = ['awaiting', 'armed', 'due', 'settled'] as const;
export const userInputStatus = z.enum(USER_INPUT_STATUSES);
export type UserInputStatus = z.infer<typeof userInputStatus>;

export const SETTLEMENT_REASONS = [
  'human',
  'timed_out',
  'swept',
  'superseded',
  'dispatched',
  'rejected',
] as const;
export const settlementReason = z.enum(SETTLEMENT_REASONS);
export type SettlementReason = z.infer<typeof settlementReason>;

const viewBase = {
  id: z.string(),
  session_id: z.string(),
  task_id: z.string(),
  status: userInputStatus,
  revision: z.number().int().describe('The request’s own revision; keep the highest per ID'),
  created_at: timestamp,
  /** While awaiting only; an answered request no longer has a running deadline. */
  deadline_at: timestamp.nullable(),
  settled_reason: settlementReason.nullable(),
  /** The person who answered; null until a person has. */
  responded_by: responder.nullable(),
  title: z.string(),
};

/** A piece of what the tool will do, as the agent described it: a command or text, or a diff. */
export const consentDetail = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('text'), text: z.string() }),
    z.object({
      type: z.literal('diff'),
      path: z.string(),
      /** Null for a new file. */
      old_text: z.string().nullable(),
      new_text: z.string(),
    }),
  ])
  .meta({ id: 'ConsentDetail' });
export type ConsentDetail = z.infer<typeof consentDetail>;

export const consentView = z
  .object({
    ...viewBase,
    kind: z.literal('consent'),
    tool_key: z.string(),
    /** The tool call's command and changes, each cut to `MAX_CONSENT_DETAIL_CHARS`. */
    details: z.array(consentDetail),
    options: z.array(consentOption),
    selected_option_id: z.string().nullable(),
    /** Allowed by an earlier "always" for this profile and tool, without asking. */
    remembered: z.boolean(),
    /** The person's own words with a Reject; the agent gets them as a follow-up message. */
    reason: z.string().nullable(),
  })
  .meta({ id: 'ConsentRequest' });
export type ConsentView = z.infer<typeof consentView>;

export const actionView = z
  .object({
    ...viewBase,
    kind: z.literal('action'),
    instructions: z.string(),
    url: z.string().nullable(),
    decision: actionDecision.nullable(),
    /** The person's own words with a Skip; they are part of `follow_up_text`. */
    reason: z.string().nullable(),
    follow_up_text: z.string().nullable(),
    /** Listed in the session queue as a machine-owned item. */
    queued: z.boolean(),
    follow_up_attempts: z.number().int(),
  })
  .meta({ id: 'ActionRequest' });
export type ActionView = z.infer<typeof actionView>;

/** An agent's form (an ACP form elicitation), rendered from its schema. */
export const formView = z
  .object({
    ...viewBase,
    kind: z.literal('form'),
    /** What the agent says it needs, shown above the fields. */
    message: z.string(),
    schema: formSchema,
    decision: formDecision.nullable(),
    /** What the person sent, once accepted. */
    content: formContent.nullable(),
  })
  .meta({ id: 'FormRequest' });
export type FormView = z.infer<typeof formView>;

export const userInputView = z.discriminatedUnion('kind', [consentView, actionView, formView]);
export type UserInputView = z.infer<typeof userInputView>;

/**
 * Why the person skipped an action or rejected a consent, in their own words:
 * capped in code points like every answer text (zod's `max` counts UTF-16 units).
 */
const decisionReason = z
  .string()
  .refine((value) => codePoints(value) <= MAX_ANSWER_TEXT_CODE_POINTS, {
    error: `must be at most ${MAX_ANSWER_TEXT_CODE_POINTS} characters`,
  })
  .meta({ maxLength: MAX_ANSWER_TEXT_CODE_POINTS })
  .describe(
    `With decision "skip" or a consent's reject option only: the person's reason, passed to the agent (a reject's as a follow-up message once its turn ends). At most ${MAX_ANSWER_TEXT_CODE_POINTS} Unicode code points`,
  );

/**
 * A person's answer: an option of a consent (a reject one with an optional
 * reason), Done/Skip of an action (Skip with an optional reason), or accept (with `content`) / decline of a form.
 * `content` is checked against the form's own schema by the server, field by field.
 */
export const userInputRespondBody = z
  .strictObject({
    option_id: z.string().min(1).max(MAX_CONSENT_OPTION_ID_CHARS).optional(),
    decision: z.enum([...ACTION_DECISIONS, ...FORM_DECISIONS]).optional(),
    reason: decisionReason.optional(),
    content: z
      .unknown()
      .optional()
      .describe('With decision "accept" of a form: one value per field (FormContent)'),
  })
  .meta({ id: 'UserInputRespondBody' });
export type UserInputAnswer =
  | { option_id: string; reason?: string }
  | { decision: 'done' }
  | { decision: 'skip'; reason?: string }
  | { decision: Extract<FormDecision, 'accept'>; content: FormContent }
  | { decision: Extract<FormDecision, 'decline'> };

export const userInputListReply = z.object({ requests: z.array(userInputView) });
export const userInputReply = z.object({ request: userInputView });
