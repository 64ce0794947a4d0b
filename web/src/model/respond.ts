/**
 * `postClarification`: one bounded attempt at
 * `POST /api/v1/clarification/:pendingId/respond` (DESIGN §5.2).
 *
 * Owns an AbortController with a client deadline (40 s by default) that is
 * cleared on every path. Timeout, network error, 503, other 5xx and a
 * malformed 200 body are all `retryable`: the caller keeps its answers and may
 * send the same action again, and the server's loser path reconciles. A 409 is
 * `not_active` (expired), never a success.
 */
import { parseResponder } from './responder.js';
import type { Answer, ClarificationResponse, RespondBody, RespondOk } from './types.js';
import type { FetchLike } from './api.js';
import { pageFetch } from './page-fetch.js';

export const CLIENT_RESPONSE_DEADLINE_MS = 40_000;

/** How long a one-tap answer, Skip or Reject waits for Undo before it is sent. */
export const UNDO_WINDOW_MS = 5_000;

export type RetryReason = 'timeout' | 'network' | 'unavailable' | 'server' | 'malformed';

export type RespondOutcome =
  | { kind: 'resolved'; result: RespondOk }
  | { kind: 'not_active' }
  | { kind: 'retryable'; reason: RetryReason; status?: number }
  /** 400, 401, 403, 404: sending the same body again cannot help. */
  | { kind: 'refused'; status: number; code: string };

export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The browser's own timers; tests pass fake ones. */
export const defaultTimers: Timers = {
  setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
  clearTimeout: (handle) => {
    globalThis.clearTimeout(handle as ReturnType<typeof globalThis.setTimeout>);
  },
};

export interface PostClarificationOptions {
  deadlineMs?: number;
  fetchImpl?: FetchLike;
  timers?: Timers;
  /** The request outlives the page: it is sent as the page is hidden or left. */
  keepalive?: boolean;
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function isAnswer(value: unknown): value is Answer {
  if (typeof value !== 'object' || value === null) return false;
  const answer = value as Record<string, unknown>;
  return (
    typeof answer.question_id === 'string' &&
    isStringArray(answer.selected_options) &&
    typeof answer.custom_text === 'string'
  );
}

/** The 200 body, or `undefined` when it is not the shape of DESIGN §5.1 for this bundle. */
export function parseRespondOk(body: unknown, pendingId: string): RespondOk | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const record = body as Record<string, unknown>;
  if (typeof record.claimed !== 'boolean') return undefined;
  if (record.status !== 'answered' && record.status !== 'rejected') return undefined;
  const response = record.response;
  if (typeof response !== 'object' || response === null) return undefined;
  const r = response as Record<string, unknown>;
  if (r.pending_id !== pendingId) return undefined;
  if (!Array.isArray(r.answers) || !r.answers.every(isAnswer)) return undefined;
  if (typeof r.rejected !== 'boolean' || r.rejected !== (record.status === 'rejected'))
    return undefined;
  if (typeof r.responded_at !== 'string') return undefined;
  const parsed: ClarificationResponse = {
    pending_id: pendingId,
    answers: r.answers,
    rejected: r.rejected,
    reject_reason: typeof r.reject_reason === 'string' ? r.reject_reason : '',
    responded_at: r.responded_at,
    responded_by: parseResponder(r.responded_by),
  };
  return { claimed: record.claimed, status: record.status, response: parsed };
}

export async function postClarification(
  pendingId: string,
  body: RespondBody,
  options: PostClarificationOptions = {},
): Promise<RespondOutcome> {
  const fetchImpl = options.fetchImpl ?? pageFetch;
  const timers = options.timers ?? defaultTimers;
  const deadlineMs = options.deadlineMs ?? CLIENT_RESPONSE_DEADLINE_MS;
  const controller = new AbortController();
  const timer = timers.setTimeout(() => {
    controller.abort();
  }, deadlineMs);
  try {
    const response = await fetchImpl(
      `/api/v1/clarification/${encodeURIComponent(pendingId)}/respond`,
      {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(body),
        signal: controller.signal,
        ...(options.keepalive ? { keepalive: true } : {}),
      },
    );
    if (response.status === 409) return { kind: 'not_active' };
    if (response.status === 503) return { kind: 'retryable', reason: 'unavailable', status: 503 };
    if (response.status >= 500)
      return { kind: 'retryable', reason: 'server', status: response.status };
    if (!response.ok) {
      let code = 'unknown';
      try {
        const error = (await response.json()) as { code?: unknown };
        if (typeof error.code === 'string') code = error.code;
      } catch {
        code = 'unknown';
      }
      return { kind: 'refused', status: response.status, code };
    }
    let parsed: unknown;
    try {
      parsed = await response.json();
    } catch {
      return controller.signal.aborted
        ? { kind: 'retryable', reason: 'timeout' }
        : { kind: 'retryable', reason: 'malformed' };
    }
    const result = parseRespondOk(parsed, pendingId);
    return result ? { kind: 'resolved', result } : { kind: 'retryable', reason: 'malformed' };
  } catch {
    return { kind: 'retryable', reason: controller.signal.aborted ? 'timeout' : 'network' };
  } finally {
    timers.clearTimeout(timer);
  }
}
