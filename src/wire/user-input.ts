/**
 * Consent and action requests on the wire (DESIGN §7): the views the registry
 * publishes and lists, and what a person sends back. The requests themselves
 * live in the server's memory only.
 */
import { z } from 'zod';
import { responder, timestamp } from './common.js';
import { MAX_ANSWER_TEXT_CODE_POINTS, MAX_CONSENT_OPTION_ID_CHARS } from './limits.js';
import { codePoints } from './text.js';
import { CONSENT_OPTION_KIND_WORDS, type ConsentKindWord } from './consent-words.js';
import {
  FORM_DECISIONS,
  formContent,
  formDecision,
  formSchema,
  type FormContent,
  type FormDecision,
} from './forms.js';

export const CONSENT_OPTION_KINDS = Object.keys(CONSENT_OPTION_KIND_WORDS) as [
  ConsentKindWord,
  ...ConsentKindWord[],
];
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
  /** The agent that asked stopped (its process exited) before anyone answered. */
  'agent_exited',
  /** The server holding it stopped or restarted before anyone answered (recovery ended it). */
  'server_stopped',
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

/** A field of the respond body. */
export type UserInputRespondField = 'option_id' | 'decision' | 'reason' | 'content';

/**
 * The answers a respond body may be, by shape alone: which fields go
 * together. The one statement of that rule: `userInputRespondBody` parses by
 * it and its OpenAPI document shows it as a `oneOf`. Whether an answer fits
 * the request it names (an option of a consent, a decision of an action or a
 * form, a reason with a reject option only, content that fits the form's
 * schema) is the registry's to say, once it has found the request.
 */
export const USER_INPUT_ANSWER_SHAPES: readonly {
  readonly title: string;
  /** The decision this shape is; absent for a consent's option. */
  readonly decision?: ActionDecision | FormDecision;
  readonly fields: readonly UserInputRespondField[];
}[] = [
  {
    title: 'Consent: one of its options (a reject one may carry a reason)',
    fields: ['option_id', 'reason'],
  },
  { title: 'Action: done', decision: 'done', fields: ['decision'] },
  {
    title: 'Action: skip, with an optional reason',
    decision: 'skip',
    fields: ['decision', 'reason'],
  },
  { title: 'Form: accept, with its content', decision: 'accept', fields: ['decision', 'content'] },
  { title: 'Form: decline', decision: 'decline', fields: ['decision'] },
];

const RESPOND_FIELDS: readonly UserInputRespondField[] = [
  'option_id',
  'decision',
  'reason',
  'content',
];

/** A shape as JSON Schema, over the body's own properties: its fields, and no other. */
function shapeJsonSchema(
  shape: (typeof USER_INPUT_ANSWER_SHAPES)[number],
): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const field of RESPOND_FIELDS) {
    if (!shape.fields.includes(field)) properties[field] = false;
  }
  if (shape.decision !== undefined) properties.decision = { const: shape.decision };
  return {
    title: shape.title,
    required: [shape.decision === undefined ? 'option_id' : 'decision'],
    properties,
  };
}

/**
 * A refusal of the body's fields together. `summary` words the whole reply
 * (REST's `error`), `message` the field at `path` (a detail).
 */
function refuseShape(
  ctx: z.core.$RefinementCtx,
  summary: string,
  path: UserInputRespondField | '',
  message: string,
): void {
  ctx.addIssue({
    code: 'custom',
    message,
    path: path === '' ? [] : [path],
    params: { summary },
    input: ctx.value,
  });
}

/**
 * A person's answer: an option of a consent (a reject one with an optional
 * reason), Done/Skip of an action (Skip with an optional reason), or accept (with `content`) / decline of a form.
 * `content` is checked against the form's own schema by the server, field by field.
 * Which fields go together is checked only once each field is well formed,
 * and the first rule broken is the one reported.
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
  .superRefine(
    (body, ctx) => {
      if ((body.option_id === undefined) === (body.decision === undefined)) {
        refuseShape(
          ctx,
          'give either option_id or decision',
          '',
          'exactly one of option_id (consent) or decision (action, form)',
        );
        return;
      }
      const shape = USER_INPUT_ANSWER_SHAPES.find((entry) => entry.decision === body.decision);
      const allows = (field: UserInputRespondField) => shape?.fields.includes(field) === true;
      if (body.reason !== undefined && !allows('reason')) {
        refuseShape(
          ctx,
          'a reason goes with decision "skip" or a reject option only',
          'reason',
          'only with decision "skip" or a reject option_id',
        );
      } else if (body.content !== undefined && !allows('content')) {
        refuseShape(
          ctx,
          'content goes only with decision "accept"',
          'content',
          'only a form accepted with decision "accept" has content',
        );
      }
    },
    { when: (payload) => payload.issues.length === 0 },
  )
  .meta({ id: 'UserInputRespondBody', oneOf: USER_INPUT_ANSWER_SHAPES.map(shapeJsonSchema) });
export type UserInputRespondInput = z.output<typeof userInputRespondBody>;

export type UserInputAnswer =
  | { option_id: string; reason?: string }
  | { decision: 'done' }
  | { decision: 'skip'; reason?: string }
  | { decision: Extract<FormDecision, 'accept'>; content: FormContent }
  | { decision: Extract<FormDecision, 'decline'> };

/**
 * The answer a well-formed respond body gives, as the registry takes it: a
 * reason trimmed (blank is none), and an accepted form's content as sent
 * (none is empty: a form may have no fields) for the registry to check
 * against the form's schema before anything changes.
 */
export function userInputAnswerOf(body: UserInputRespondInput): UserInputAnswer {
  const { option_id: optionId, decision, content } = body;
  const reason = body.reason?.trim() ?? '';
  if (optionId !== undefined) {
    return reason === '' ? { option_id: optionId } : { option_id: optionId, reason };
  }
  if (decision === 'accept') return { decision, content: (content ?? {}) as FormContent };
  if (decision === 'skip' && reason !== '') return { decision, reason };
  return { decision: decision ?? 'done' };
}

export const userInputListReply = z.object({ requests: z.array(userInputView) });
export const userInputReply = z.object({ request: userInputView });
