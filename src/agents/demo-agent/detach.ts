/**
 * When `/ask-detach` gives up its own call: `afterMs` after the call began,
 * but never before Clarion said it wrote the question (the first progress
 * that names its pending ID, `PENDING_ID_PROGRESS_META`). Ending the call
 * ends the turn, and a turn ended before the question was written leaves no
 * question open: a short wait (a test's) or a slow write must not lose it.
 * A server that never says so is given up on at `DEMO_MCP_IDLE_TIMEOUT_MS`.
 */
import { DEMO_MCP_IDLE_TIMEOUT_MS } from '../../tunables.js';
import { PENDING_ID_PROGRESS_META } from '../../wire/index.js';

export interface Detach {
  /** Aborts once the call is given up, or when the turn's own signal does. */
  readonly signal: AbortSignal;
  /** Every progress notification of the call. */
  onProgress(progress: unknown): void;
  /** The call ended: nothing more to give up. */
  dispose(): void;
}

export function detachOnceAsked(afterMs: number, turnSignal: AbortSignal): Detach {
  const controller = new AbortController();
  let asked = false;
  let due = false;
  const end = () => {
    controller.abort();
  };
  const dueTimer = setTimeout(() => {
    due = true;
    if (asked) end();
  }, afterMs);
  const unsaidTimer = setTimeout(end, Math.max(afterMs, DEMO_MCP_IDLE_TIMEOUT_MS));
  return {
    signal: AbortSignal.any([turnSignal, controller.signal]),
    onProgress(progress) {
      if (asked || !namesPendingId(progress)) return;
      asked = true;
      if (due) end();
    },
    dispose() {
      clearTimeout(dueTimer);
      clearTimeout(unsaidTimer);
    },
  };
}

function namesPendingId(progress: unknown): boolean {
  if (typeof progress !== 'object' || progress === null || !('_meta' in progress)) return false;
  const meta = progress._meta;
  if (typeof meta !== 'object' || meta === null) return false;
  const pendingId = (meta as Record<string, unknown>)[PENDING_ID_PROGRESS_META];
  return typeof pendingId === 'string' && pendingId !== '';
}
