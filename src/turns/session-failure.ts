/**
 * A session's failure as stored and as said: the row's three columns read
 * back as the wire's `SessionFailure`, and the `session_failed` refusal that
 * carries it, so every surface names the same reason.
 */
import type { SessionRecord } from '../store/index.js';
import {
  failure,
  SESSION_FAILURE_CODES,
  type Failure,
  type SessionFailure,
} from '../wire/index.js';

/** The stored failure; null for a session that has none (or a code this build does not know). */
export function sessionFailureOf(
  session: Pick<SessionRecord, 'failure_code' | 'failure_message' | 'failed_at'>,
): SessionFailure | null {
  const code = SESSION_FAILURE_CODES.find((known) => known === session.failure_code);
  if (!code || session.failed_at === null) return null;
  return { code, message: session.failure_message ?? '', at: session.failed_at };
}

/** The refusal of a failed session: 409 `session_failed` with the reason, never "sent". */
export function sessionFailed(
  session: Pick<SessionRecord, 'failure_code' | 'failure_message' | 'failed_at'>,
): Failure<'session_failed'> {
  const said = sessionFailureOf(session);
  return failure('session_failed', said?.message.split('\n')[0], { failure: said });
}
