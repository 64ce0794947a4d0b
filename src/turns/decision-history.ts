/**
 * The decision log as people read it: each decision row of the store turned
 * into one entry (pure), and the read that pages through the ones the caller
 * may see. A row that does not read as a decision is left out, never guessed.
 */
import type { Principal } from '../auth/index.js';
import { readResponder } from '../clarification/index.js';
import {
  decisionPage,
  type DecisionCursor,
  type DecisionFilter,
  type DecisionRow,
} from '../store/index.js';
import {
  CLARIFICATION_TYPE,
  CONSENT_OPTION_KINDS,
  consentChoiceText,
  type ConsentOptionKind,
  type DecisionEntry,
} from '../wire/index.js';
import { alwaysRuleOf } from './decision-record.js';
import type { TurnsDeps } from './context.js';

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}

/** A person's own words as the log quotes typed text; empty when there are none. */
function quoted(value: unknown): string {
  const words = text(value);
  return words === '' ? '' : `“${words}”`;
}

type Decided = Pick<
  DecisionEntry,
  'kind' | 'subject' | 'outcome' | 'detail' | 'remembered' | 'option_kind' | 'always_rule'
>;

/** What no consent decision has. */
const NO_OPTION = { option_kind: null, always_rule: null } as const;

function questionDecision(meta: Record<string, unknown>): Decided | undefined {
  const question = record(meta.question);
  const subject = text(question.prompt);
  const base = { kind: 'question', subject, remembered: false, ...NO_OPTION } as const;
  switch (meta.status) {
    case 'answered': {
      const response = record(meta.response);
      const options = Array.isArray(question.options) ? question.options.map(record) : [];
      const selected = Array.isArray(response.selected_options) ? response.selected_options : [];
      const labels = selected.map(
        (id) => text(options.find((option) => option.option_id === id)?.label) || text(id),
      );
      const custom = text(response.custom_text);
      const detail = [...labels, ...(custom === '' ? [] : [`“${custom}”`])].join(', ');
      return { ...base, outcome: 'answered', detail };
    }
    case 'rejected':
      return { ...base, outcome: 'skipped', detail: text(meta.reject_reason) };
    case 'cancelled':
      return { ...base, outcome: 'cancelled', detail: '' };
    default:
      return undefined;
  }
}

function userInputDecision(meta: Record<string, unknown>): Decided | undefined {
  const subject = text(meta.title);
  if (meta.kind === 'action') {
    if (meta.decision !== 'done' && meta.decision !== 'skip') return undefined;
    const outcome = meta.decision === 'done' ? 'done' : 'skipped';
    const detail = quoted(meta.reason);
    return { kind: 'action', subject, outcome, detail, remembered: false, ...NO_OPTION };
  }
  if (meta.kind === 'form') {
    if (meta.decision !== 'accept' && meta.decision !== 'decline') return undefined;
    // The row keeps no content (it may hold anything a person typed); nor does the log.
    const outcome = meta.decision === 'accept' ? 'sent' : 'declined';
    return { kind: 'form', subject, outcome, detail: '', remembered: false, ...NO_OPTION };
  }
  if (meta.kind !== 'consent') return undefined;
  const optionKind = consentKindOf(meta.option_kind);
  const label = text(meta.option_label);
  // What the choice did leads, in Clarion's words: the agent's label may say otherwise.
  const chosen = optionKind === null ? label : consentChoiceText(optionKind, label);
  const detail = [chosen, quoted(meta.reason)].filter((part) => part !== '');
  // Rows from before `always_rule` was kept say the same through the kind and `remembered`.
  const rule = alwaysRuleOf(optionKind, meta.remembered === true) ?? null;
  return {
    kind: 'consent',
    subject,
    outcome: optionKind?.startsWith('reject') ? 'rejected' : 'allowed',
    detail: detail.join(', '),
    remembered: rule === 'applied',
    option_kind: optionKind,
    always_rule: rule,
  };
}

function consentKindOf(value: unknown): ConsentOptionKind | null {
  const kinds: readonly unknown[] = CONSENT_OPTION_KINDS;
  return kinds.includes(value) ? (value as ConsentOptionKind) : null;
}

/** One row of the decision log as an entry; `undefined` when it does not read as a decision. */
export function decisionEntryOf(row: DecisionRow): DecisionEntry | undefined {
  const { message } = row;
  const meta = message.metadata;
  const respondedBy = readResponder(meta.responded_by);
  if (!respondedBy) return undefined;
  const decided =
    message.type === CLARIFICATION_TYPE ? questionDecision(meta) : userInputDecision(meta);
  if (!decided) return undefined;
  return {
    message_id: message.id,
    session_id: message.task_session_id,
    task_id: message.task_id,
    task_title: row.taskTitle,
    session_deleted: row.sessionDeleted,
    ...decided,
    responded_by: respondedBy,
    decided_at: text(meta.responded_at) || message.updated_at,
  };
}

/** A page of the decisions the caller may see that match `filter`, newest first. */
export async function decisionHistory(
  deps: Pick<TurnsDeps, 'store'>,
  principal: Principal,
  options: { before?: DecisionCursor | undefined; limit: number; filter?: DecisionFilter },
): Promise<{ entries: DecisionEntry[]; next: DecisionCursor | null }> {
  const reader =
    principal.kind === 'agent'
      ? ({ kind: 'agent', sessionId: principal.sessionId } as const)
      : ({ kind: 'user', userId: principal.userId } as const);
  const page = await decisionPage(deps.store, reader, options);
  const entries = page.rows.flatMap((row) => {
    const entry = decisionEntryOf(row);
    return entry ? [entry] : [];
  });
  return { entries, next: page.next };
}
