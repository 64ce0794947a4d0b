/**
 * Session writes of what an agent reported, and of what became of its start
 * or of a prompt it did not take (`admission.ts`, `dispatch.ts`). The agent
 * said it once and will not say it again, and nothing else moves its session
 * out of `starting` or `running`, so a write that fails because the storage
 * cannot take it now (a full disk, an I/O error, a lock held elsewhere) is
 * tried again with a growing pause, up to `AGENT_EVENT_RETRY_LIMIT_MS` from
 * its first failure, instead of dropping the event. The caller's per-session
 * order holds: later events of the session wait behind the retries. Other
 * failures are not retried; a bug does not heal with time. The pauses and the
 * limit run on the turns' timers, so a fake clock drives them in tests.
 */
import {
  AGENT_EVENT_RETRY_BASE_MS,
  AGENT_EVENT_RETRY_LIMIT_MS,
  AGENT_EVENT_RETRY_MAX_MS,
} from '../tunables.js';
import type { SessionWrite } from '../events/index.js';
import { isStorageUnavailable } from '../store/index.js';
import { pause } from '../support/index.js';
import type { TurnsDeps } from './context.js';

export async function writeRetrying<T>(
  deps: Pick<TurnsDeps, 'sessions' | 'logger' | 'timers'>,
  sessionId: string,
  change: (write: SessionWrite) => Promise<T>,
): Promise<T> {
  return storageRetrying(
    deps,
    sessionId,
    'agent event not written: storage unavailable; retrying',
    () => deps.sessions.write(sessionId, change),
  );
}

/**
 * `attempt` (any store operation an agent's report or exit needs done)
 * tried again the same way while the storage cannot take it; `retrying` is
 * what each pause logs.
 */
export async function storageRetrying<T>(
  deps: Pick<TurnsDeps, 'logger' | 'timers'>,
  sessionId: string,
  retrying: string,
  attempt: () => Promise<T>,
): Promise<T> {
  try {
    return await attempt();
  } catch (error) {
    if (!isStorageUnavailable(error)) throw error;
    return await retryUntilLimit(deps, sessionId, retrying, attempt, error);
  }
}

/**
 * The retries after a first failure. The limit's timer starts only then, so
 * a write that succeeds at once arms nothing; once it fires it cuts the pause
 * under way short, and that last try's failure is the one thrown.
 */
async function retryUntilLimit<T>(
  deps: Pick<TurnsDeps, 'logger' | 'timers'>,
  sessionId: string,
  retrying: string,
  attempt: () => Promise<T>,
  first: unknown,
): Promise<T> {
  const limit = new AbortController();
  const limitTimer = deps.timers.setTimeout(() => {
    limit.abort();
  }, AGENT_EVENT_RETRY_LIMIT_MS);
  try {
    let error: unknown = first;
    for (let tries = 1; ; tries += 1) {
      if (!isStorageUnavailable(error) || limit.signal.aborted) throw error;
      const pauseMs = Math.min(
        AGENT_EVENT_RETRY_MAX_MS,
        AGENT_EVENT_RETRY_BASE_MS * 2 ** (tries - 1),
      );
      deps.logger.warn(
        {
          err: error,
          reason: error.reason,
          session_id: sessionId,
          attempt: tries,
          retry_in_ms: pauseMs,
        },
        retrying,
      );
      await pause(deps.timers, pauseMs, limit.signal);
      try {
        return await attempt();
      } catch (failed) {
        error = failed;
      }
    }
  } finally {
    limitTimer.cancel();
  }
}
