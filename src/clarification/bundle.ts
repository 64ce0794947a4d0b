/**
 * Reading a bundle out of its stored rows (pure). A bundle is well formed
 * when every row is a clarification request of one session and one turn and
 * carries its question; anything else is never answerable.
 */
import type { MessageRecord } from '../store/index.js';
import { CLARIFICATION_TYPE } from '../store/index.js';
import { DECISION_SURFACES, type Responder } from '../wire/index.js';
import type { Answer, ClarificationResponse } from './outcome.js';
import type { Question, QuestionOption } from './questions.js';

export type RowStatus = 'pending' | 'answered' | 'rejected' | 'expired' | 'cancelled';

export interface BundleRow {
  id: string;
  questionId: string;
  status: RowStatus;
  detached: boolean;
  deliveryPending: boolean;
  response: Answer | undefined;
  rejectReason: string;
  respondedAt: string;
  /** Who decided (answered, skipped or cancelled); undefined while pending or before it was kept. */
  respondedBy: Responder | undefined;
  createdAt: string;
  updatedAt: string;
}

export interface Bundle {
  pendingId: string;
  sessionId: string;
  taskId: string;
  turnId: string;
  context: string;
  createdAt: string;
  questions: Question[];
  rows: BundleRow[];
  /** The replica its last live wait began on (several replicas only). */
  askedOn: string | undefined;
}

export type BundleRead =
  { ok: true; bundle: Bundle } | { ok: false; reason: 'missing' | 'malformed' };

const STATUSES = new Set<RowStatus>(['pending', 'answered', 'rejected', 'expired', 'cancelled']);

function asString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function readOption(value: unknown): QuestionOption | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const option = value as Record<string, unknown>;
  const optionId = asString(option.option_id);
  const label = asString(option.label);
  if (optionId === undefined || label === undefined) return undefined;
  return { option_id: optionId, label, description: asString(option.description) ?? '' };
}

function readQuestion(value: unknown, questionId: string): Question | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const question = value as Record<string, unknown>;
  if (!Array.isArray(question.options) || question.options.length === 0) return undefined;
  const options = (question.options as unknown[]).map(readOption);
  if (options.some((option) => option === undefined)) return undefined;
  return {
    id: questionId,
    title: asString(question.title) ?? '',
    prompt: asString(question.prompt) ?? '',
    options: options as QuestionOption[],
    multi_select: question.multi_select === true,
  };
}

function readAnswer(value: unknown): Answer | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const answer = value as Record<string, unknown>;
  const questionId = asString(answer.question_id);
  if (questionId === undefined) return undefined;
  const selected = Array.isArray(answer.selected_options)
    ? (answer.selected_options as unknown[]).filter(
        (item): item is string => typeof item === 'string',
      )
    : [];
  return {
    question_id: questionId,
    selected_options: selected,
    custom_text: asString(answer.custom_text) ?? '',
  };
}

const SURFACES = new Set<string>(DECISION_SURFACES);

/** The stored `responded_by`, or undefined when absent or not one. */
export function readResponder(value: unknown): Responder | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  const userId = asString(record.user_id);
  const surface = asString(record.surface);
  if (userId === undefined || surface === undefined || !SURFACES.has(surface)) return undefined;
  return {
    user_id: userId,
    name: asString(record.name) ?? '',
    surface: surface as Responder['surface'],
  };
}

function flag(value: unknown): boolean {
  return value === true || value === 'true' || value === '1' || value === 1;
}

/** Builds the bundle from rows already ordered by `created_at`, `id`. */
export function readBundle(pendingId: string, messages: readonly MessageRecord[]): BundleRead {
  if (messages.length === 0) return { ok: false, reason: 'missing' };
  const first = messages[0];
  if (!first) return { ok: false, reason: 'missing' };
  const rows: BundleRow[] = [];
  const questions: Question[] = [];
  for (const message of messages) {
    const meta = message.metadata;
    const questionId = asString(meta.question_id);
    // Only an absent status means pending, as in the store's SQL guards.
    const status = meta.status === undefined || meta.status === null ? 'pending' : meta.status;
    if (
      message.type !== CLARIFICATION_TYPE ||
      message.task_session_id !== first.task_session_id ||
      message.turn_id !== first.turn_id ||
      questionId === undefined ||
      typeof status !== 'string' ||
      !STATUSES.has(status as RowStatus)
    ) {
      return { ok: false, reason: 'malformed' };
    }
    const question = readQuestion(meta.question, questionId);
    const response = readAnswer(meta.response);
    // An answered row without its answer could not be replayed identically.
    if (!question || (status === 'answered' && !response))
      return { ok: false, reason: 'malformed' };
    questions.push(question);
    rows.push({
      id: message.id,
      questionId,
      status: status as RowStatus,
      detached: flag(meta.agent_disconnected),
      deliveryPending: flag(meta.response_delivery_pending),
      response,
      rejectReason: asString(meta.reject_reason) ?? '',
      respondedAt: asString(meta.responded_at) ?? message.updated_at,
      respondedBy: readResponder(meta.responded_by),
      createdAt: message.created_at,
      updatedAt: message.updated_at,
    });
  }
  if (new Set(rows.map((row) => row.questionId)).size !== rows.length) {
    return { ok: false, reason: 'malformed' };
  }
  return {
    ok: true,
    bundle: {
      pendingId,
      sessionId: first.task_session_id,
      taskId: first.task_id,
      turnId: first.turn_id,
      context: asString(first.metadata.context) ?? '',
      createdAt: first.created_at,
      questions,
      rows,
      askedOn: asString(first.metadata.asked_on),
    },
  };
}

/**
 * The committed winner's response, rebuilt from the rows, or undefined when
 * no row was answered or rejected. Identical for every caller, since it reads
 * only what the claim stored.
 */
export function winnerResponse(bundle: Bundle): ClarificationResponse | undefined {
  const decided = bundle.rows.find((row) => row.status === 'answered' || row.status === 'rejected');
  if (!decided) return undefined;
  const rejected = decided.status === 'rejected';
  return {
    pending_id: bundle.pendingId,
    answers: rejected
      ? []
      : bundle.rows.flatMap((row) =>
          row.status === 'answered' && row.response ? [row.response] : [],
        ),
    rejected,
    reject_reason: rejected ? decided.rejectReason : '',
    responded_at: decided.respondedAt,
    responded_by: decided.respondedBy ?? null,
  };
}

/** Status of the bundle as a whole: the first decided row's, else pending. */
export function bundleStatus(bundle: Bundle): RowStatus {
  const terminal = bundle.rows.find((row) => row.status !== 'pending');
  return terminal?.status ?? 'pending';
}
