/**
 * `cancelQuestion`: one bounded attempt at a person's cancel of a live
 * question (`POST /api/v1/clarification/:pendingId/cancel`), mapped to what
 * the question's view does next.
 *
 * The server cancels only a question an agent still waits on, and answers
 * 409 `not_active` otherwise: either the agent moved on and the question can
 * still be answered or skipped, or it is settled already. Which of the two is
 * read back from the bundle itself (`active`), never from the error's words.
 * Both requests share one client deadline (the respond deadline, DESIGN §5.2).
 */
import type { ApiClient, ApiResult } from './api.js';
import { CLIENT_RESPONSE_DEADLINE_MS, defaultTimers, type Timers } from './respond.js';

export type CancelOutcome =
  | { kind: 'cancelled' }
  /** No agent waits on it any more; it can still be answered or skipped. */
  | { kind: 'not_waiting' }
  /** Not answerable either (settled meanwhile), or not known to be: the events tell what it is. */
  | { kind: 'closed' }
  /** 404: gone, or no longer visible to this person. */
  | { kind: 'unavailable' }
  /** Timeout, network error, 5xx: not known to have happened; it may be sent again. */
  | { kind: 'retryable' }
  /** Other client errors: sending it again cannot help. */
  | { kind: 'refused'; status: number; code: string };

function failed(result: Exclude<ApiResult<unknown>, { ok: true }>): CancelOutcome {
  if (result.kind === 'network' || result.status >= 500) return { kind: 'retryable' };
  if (result.status === 404) return { kind: 'unavailable' };
  return { kind: 'refused', status: result.status, code: result.code };
}

/** After a 409: whether the question is still answerable, as its bundle says. */
function refusal(result: ApiResult<{ active?: unknown }>): CancelOutcome {
  if (!result.ok) {
    // The refusal stands either way; without the bundle, let the events say what it became.
    return result.kind === 'http' && result.status === 404
      ? { kind: 'unavailable' }
      : { kind: 'closed' };
  }
  return result.value.active === true ? { kind: 'not_waiting' } : { kind: 'closed' };
}

export async function cancelQuestion(
  api: Pick<ApiClient, 'cancelQuestion' | 'question'>,
  pendingId: string,
  options: { deadlineMs?: number; timers?: Timers } = {},
): Promise<CancelOutcome> {
  const timers = options.timers ?? defaultTimers;
  const controller = new AbortController();
  const timer = timers.setTimeout(() => {
    controller.abort();
  }, options.deadlineMs ?? CLIENT_RESPONSE_DEADLINE_MS);
  try {
    const result = await api.cancelQuestion(pendingId, controller.signal);
    if (result.ok) return { kind: 'cancelled' };
    if (result.kind === 'http' && result.status === 409) {
      return refusal(await api.question(pendingId, controller.signal));
    }
    return failed(result);
  } finally {
    timers.clearTimeout(timer);
  }
}
