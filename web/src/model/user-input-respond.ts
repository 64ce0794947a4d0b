/**
 * `postUserInputAnswer`: one bounded attempt at
 * `POST /api/v1/user-inputs/:id/respond` with `{option_id}` (consent) or
 * `{decision}` (action) or a form's `{decision, content?}`, mapped to what a
 * card does next.
 *
 * The registry settles a request once, first answer wins, so sending the same
 * answer again after a network error or 5xx is safe: at worst it comes back
 * 409. A 409 means someone (another tab, a deadline) settled it first; the
 * settled event tells how, so it is not an error. One with code
 * `agent_exited` says how itself: the agent that asked stopped, nobody decided. The attempt is bounded by
 * the same client deadline as clarification answers (DESIGN §5.2).
 */
import type { ApiClient } from './api.js';
import { CLIENT_RESPONSE_DEADLINE_MS, defaultTimers, type Timers } from './respond.js';
import type { UserInputAnswer, UserInputView } from './types.js';

export type UserInputRespondOutcome =
  | { kind: 'answered'; request: UserInputView }
  | { kind: 'already_settled' }
  /** It ended unanswered because the agent that asked stopped. */
  | { kind: 'agent_exited' }
  /** Unknown to the server (or not visible): e.g. a restart dropped it. */
  | { kind: 'gone' }
  /** Timeout, network error, 5xx or a malformed body: the same answer may be sent again. */
  | { kind: 'retryable' }
  /** 400 and other client errors: sending the same body again cannot help. */
  | { kind: 'refused'; status: number; code: string };

function isView(value: unknown, requestId: string): value is UserInputView {
  if (typeof value !== 'object' || value === null) return false;
  const view = value as Record<string, unknown>;
  return (
    view.id === requestId &&
    typeof view.revision === 'number' &&
    typeof view.status === 'string' &&
    (view.kind === 'consent' || view.kind === 'action' || view.kind === 'form')
  );
}

export async function postUserInputAnswer(
  api: Pick<ApiClient, 'respondUserInput'>,
  requestId: string,
  answer: UserInputAnswer,
  options: { deadlineMs?: number; timers?: Timers; keepalive?: boolean } = {},
): Promise<UserInputRespondOutcome> {
  const timers = options.timers ?? defaultTimers;
  const controller = new AbortController();
  const timer = timers.setTimeout(() => {
    controller.abort();
  }, options.deadlineMs ?? CLIENT_RESPONSE_DEADLINE_MS);
  try {
    const result = await api.respondUserInput(
      requestId,
      answer,
      controller.signal,
      options.keepalive,
    );
    if (result.ok) {
      const request: unknown = (result.value as { request?: unknown } | undefined)?.request;
      return isView(request, requestId) ? { kind: 'answered', request } : { kind: 'retryable' };
    }
    if (result.kind === 'network') return { kind: 'retryable' };
    if (result.status === 409) {
      return result.code === 'agent_exited'
        ? { kind: 'agent_exited' }
        : { kind: 'already_settled' };
    }
    if (result.status === 404) return { kind: 'gone' };
    if (result.status >= 500) return { kind: 'retryable' };
    return { kind: 'refused', status: result.status, code: result.code };
  } finally {
    timers.clearTimeout(timer);
  }
}
