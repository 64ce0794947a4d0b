/**
 * Keeps a long tool call alive: while `work` runs, sends an MCP progress
 * notification every `intervalMs` if the client gave a progress token, so
 * clients that reset their request timeout on progress never give up on a
 * person who takes an hour to answer (DESIGN §5: every 20 s). Progress only
 * ever increases, as the protocol requires.
 */
import type { Logger } from '../../observability/index.js';
import type { ToolExtra } from './call-context.js';

export { MCP_PROGRESS_INTERVAL_MS as PROGRESS_INTERVAL_MS } from '../../tunables.js';
const WAITING_MESSAGE = 'Waiting for the person to answer';

/** Whether the client asked for progress, and so resets its request timeout on it. */
export function hasProgressToken(extra: ToolExtra): boolean {
  return extra._meta?.progressToken !== undefined;
}

export async function withProgress<T>(
  extra: ToolExtra,
  options: { intervalMs: number; logger: Logger },
  work: () => Promise<T>,
): Promise<T> {
  const progressToken = extra._meta?.progressToken;
  if (progressToken === undefined) return work();
  let progress = 0;
  const timer = setInterval(() => {
    progress += 1;
    extra
      .sendNotification({
        method: 'notifications/progress',
        params: { progressToken, progress, message: WAITING_MESSAGE },
      })
      .catch((error: unknown) => {
        // The client left; the wait itself ends through the call's signal.
        options.logger.debug({ err: error }, 'mcp progress notification not sent');
      });
  }, options.intervalMs);
  // A pending heartbeat must never keep the process alive on shutdown.
  timer.unref();
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
