/**
 * Session writes of what an agent reported. The agent said it once and will
 * not say it again, so a write that fails because the storage cannot take it
 * now (a full disk, an I/O error, a lock held elsewhere) is tried again with
 * a growing pause, up to `AGENT_EVENT_RETRY_LIMIT_MS`, instead of dropping
 * the event. The caller's per-session order holds: later events of the
 * session wait behind the retries. Other failures are not retried; a bug
 * does not heal with time.
 */
import {
  AGENT_EVENT_RETRY_BASE_MS,
  AGENT_EVENT_RETRY_LIMIT_MS,
  AGENT_EVENT_RETRY_MAX_MS,
} from '../tunables.js';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SessionWrite } from '../events/index.js';
import { isStorageUnavailable } from '../store/index.js';
import type { TurnsDeps } from './context.js';

export async function writeRetrying<T>(
  deps: Pick<TurnsDeps, 'sessions' | 'logger'>,
  sessionId: string,
  change: (write: SessionWrite) => Promise<T>,
): Promise<T> {
  const started = performance.now();
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await deps.sessions.write(sessionId, change);
    } catch (error) {
      const waited = performance.now() - started;
      if (!isStorageUnavailable(error) || waited >= AGENT_EVENT_RETRY_LIMIT_MS) throw error;
      const pauseMs = Math.min(
        AGENT_EVENT_RETRY_MAX_MS,
        AGENT_EVENT_RETRY_BASE_MS * 2 ** (attempt - 1),
        AGENT_EVENT_RETRY_LIMIT_MS - waited,
      );
      deps.logger.warn(
        { err: error, reason: error.reason, session_id: sessionId, attempt, retry_in_ms: pauseMs },
        'agent event not written: storage unavailable; retrying',
      );
      await sleep(pauseMs);
    }
  }
}
