/**
 * Why a request failed, as a reason the page can say in its own language.
 * The browser's words for a lost connection ("Failed to fetch") and the
 * server's wire messages are English, so every sentence that says a failure
 * names one of these instead. Only `other` carries the server's words: a
 * refusal this list does not know may still be a person-readable reason the
 * catalog cannot (the workspaces a last owner holds, a field's problem).
 */
import type { ApiFailure } from './api.js';
import { actionFailureOf, type ActionFailure } from './session-actions.js';

export type FailureReason =
  | { kind: Exclude<ActionFailure, 'other'> }
  | { kind: 'forbidden' | 'no_workspace' | 'internal' | 'quota' | 'invalid' }
  /** A personal token, or agents running for this person or on the server: `limit` at most. */
  | { kind: 'token_limit' | 'agents_mine' | 'agents_server'; limit: number }
  | { kind: 'other'; error: string };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function failureReasonOf(failure: ApiFailure): FailureReason {
  const action = actionFailureOf(failure);
  if (action !== 'other' || failure.kind === 'network') return { kind: action } as FailureReason;
  const details = isRecord(failure.details) ? failure.details : {};
  const limit = typeof details.limit === 'number' ? details.limit : undefined;
  if (failure.code === 'conflict' && details.reason === 'token_limit' && limit !== undefined)
    return { kind: 'token_limit', limit };
  if (failure.code === 'quota_exceeded') {
    if (limit !== undefined && details.scope === 'user') return { kind: 'agents_mine', limit };
    if (limit !== undefined && details.scope === 'server') return { kind: 'agents_server', limit };
    return { kind: 'quota' };
  }
  if (failure.code === 'forbidden') return { kind: 'forbidden' };
  if (failure.code === 'no_workspace') return { kind: 'no_workspace' };
  if (failure.status >= 500) return { kind: 'internal' };
  return { kind: 'other', error: failure.error };
}

/**
 * Why an answer, a decision or a cancel was refused, from the catalogue code
 * alone (what those requests keep of a refusal). A code this list does not
 * know is named as it is: it is the server's word for the case, not a
 * sentence in English.
 */
export function refusalReasonOf(code: string): FailureReason {
  switch (code) {
    case 'forbidden':
    case 'person_required':
      return { kind: 'forbidden' };
    case 'no_workspace':
      return { kind: 'no_workspace' };
    case 'not_found':
      return { kind: 'not_found' };
    case 'quota_exceeded':
    case 'rate_limited':
    case 'too_many_open_requests':
      return { kind: 'quota' };
    case 'invalid_request':
    case 'invalid_text':
    case 'invalid_form_content':
      return { kind: 'invalid' };
    default:
      return { kind: 'other', error: code };
  }
}
