/**
 * Keeps a long tool call alive: while `work` runs, sends an MCP progress
 * notification every `intervalMs` if the client gave a progress token, so
 * clients that reset their request timeout on progress never give up on a
 * person who takes an hour to answer (DESIGN §5: every 20 s). Progress only
 * ever increases, as the protocol requires. A blocking ask names its pending
 * ID in its progress as soon as the question is written (`announce`), so a
 * call cut off before its result still says what to wait on.
 */
import type { Logger } from '../../observability/index.js';
import { PENDING_ID_PROGRESS_META } from '../../wire/index.js';
import type { ToolExtra } from './call-context.js';

export { MCP_PROGRESS_INTERVAL_MS as PROGRESS_INTERVAL_MS } from '../../tunables.js';
const WAITING_MESSAGE = 'Waiting for the person to answer';

/** Whether the client asked for progress, and so resets its request timeout on it. */
export function hasProgressToken(extra: ToolExtra): boolean {
  return extra._meta?.progressToken !== undefined;
}

/**
 * Names the question a call waits on in its progress (`PENDING_ID_PROGRESS_META`):
 * at once, then in every later notification. Does nothing without a progress token.
 */
export type AnnouncePendingId = (pendingId: string) => void;

export async function withProgress<T>(
  extra: ToolExtra,
  options: { intervalMs: number; logger: Logger },
  work: (announce: AnnouncePendingId) => Promise<T>,
): Promise<T> {
  const progressToken = extra._meta?.progressToken;
  if (progressToken === undefined) return work(() => undefined);
  let progress = 0;
  let meta: Record<string, string> | undefined;
  const notify = () => {
    progress += 1;
    extra
      .sendNotification({
        method: 'notifications/progress',
        params: {
          progressToken,
          progress,
          message: WAITING_MESSAGE,
          ...(meta ? { _meta: meta } : {}),
        },
      })
      .catch((error: unknown) => {
        // The client left; the wait itself ends through the call's signal.
        options.logger.debug({ err: error }, 'mcp progress notification not sent');
      });
  };
  const timer = setInterval(notify, options.intervalMs);
  // A pending heartbeat must never keep the process alive on shutdown.
  timer.unref();
  const announce: AnnouncePendingId = (pendingId) => {
    meta = { [PENDING_ID_PROGRESS_META]: pendingId };
    notify();
  };
  try {
    return await work(announce);
  } finally {
    clearInterval(timer);
  }
}
