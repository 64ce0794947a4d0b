/**
 * `ask_user_question` for a client that sends no progress token. Such a
 * client cannot be kept waiting: nothing resets its request timeout (60 s by
 * default in the SDKs), so a blocking ask would die there and the model
 * would never learn the pending ID. So the call returns by `boundMs` with the
 * pending ID, and the ask itself goes on: its live wait keeps the bundle
 * attached, an answer is handed over as to any live waiter, and
 * `wait_for_answer` reads it back from the store. The model is told to call
 * it.
 *
 * Bounds: the held wait ends like any live wait (the live-wait budget, the
 * session's turn ending, shutdown) and also when the MCP session closes or
 * the call's token is revoked (an answer then takes the detached path, as
 * when the caller left); until the call returns, a cancelled call ends it as
 * before (the bundle detaches). No MCP session holding one is closed to
 * make room for another, and an agent's own is not closed as idle either
 * (`McpSessionHooks.holding`): its turn may run on quietly for longer, and
 * the answer must still reach it live.
 */
import type { AskOptions, AskResult } from '../../clarification/index.js';
import type { Logger } from '../../observability/index.js';
import type { CredentialLease } from '../../auth/index.js';
import { EXHAUSTED, systemClock, systemTimers, withinFreshBudget } from '../../support/index.js';

export type BoundedAsk =
  | { readonly kind: 'settled'; readonly result: AskResult }
  | {
      readonly kind: 'waiting';
      readonly pendingId: string;
      /** Settles once the held ask ended, however. */
      readonly ended: Promise<void>;
    };

export interface BoundedAskOptions {
  readonly boundMs: number;
  /** The call: cancelled or disconnected before it returns, the ask ends with it. */
  readonly callSignal: AbortSignal;
  /** The MCP session: once it closes, nobody can collect the answer through it. */
  readonly sessionEnded: AbortSignal;
  /** The call's token, watched for the held ask; released once the ask settles. */
  readonly credential: CredentialLease;
  /**
   * Whether the caller may still be handed the answer, given its token's
   * liveness read; absent, the token's liveness alone decides.
   */
  readonly entitled?: (live: () => Promise<boolean>) => () => Promise<boolean>;
  readonly logger: Logger;
}

export async function askWithinBound(
  ask: (options: AskOptions) => Promise<AskResult>,
  options: BoundedAskOptions,
): Promise<BoundedAsk> {
  const { callSignal, sessionEnded, credential } = options;
  const held = new AbortController();
  const end = () => {
    held.abort();
  };
  if (callSignal.aborted || sessionEnded.aborted || credential.revoked.aborted) end();
  callSignal.addEventListener('abort', end, { once: true });
  sessionEnded.addEventListener('abort', end, { once: true });
  credential.revoked.addEventListener('abort', end, { once: true });
  const settle = () => {
    sessionEnded.removeEventListener('abort', end);
    credential.revoked.removeEventListener('abort', end);
    credential.release();
  };

  let bundleWritten: (pendingId: string) => void = () => undefined;
  const bundle = new Promise<string>((resolve) => {
    bundleWritten = resolve;
  });
  let returned = false;
  const entitled = options.entitled?.(credential.live) ?? credential.live;
  const asking = ask({ signal: held.signal, onBundle: bundleWritten, entitled });
  asking.then(settle, (error: unknown) => {
    settle();
    // Before the call returned, the call reports it; after, only the log can.
    if (returned) options.logger.error({ err: error }, 'held mcp ask failed');
  });
  const settled = asking.then((result): BoundedAsk => ({ kind: 'settled', result }));

  try {
    const first = await withinFreshBudget(
      options.boundMs,
      systemClock(),
      systemTimers,
      () => settled,
    );
    if (first !== EXHAUSTED) return first;
    // The bundle is normally written long before; until it is, there is no ID to hand out.
    return await Promise.race([
      settled,
      bundle.then((pendingId): BoundedAsk => ({
        kind: 'waiting',
        pendingId,
        ended: asking.then(noop, noop),
      })),
    ]);
  } finally {
    callSignal.removeEventListener('abort', end);
    returned = true;
  }
}

function noop(): void {}
