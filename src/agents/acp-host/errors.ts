/**
 * Typed failures of the ACP host. Callers branch on `code`, never on the
 * message; `not_started`, `busy` and `aborted` before a write are known to
 * have sent nothing to the agent; `closed` (a start after the host's close)
 * started nothing.
 */
import type { AgentFailure } from '../runtime.js';

export type AgentHostErrorCode =
  | 'already_started'
  | 'not_started'
  | 'busy'
  | 'aborted'
  | 'not_accepted'
  | 'spawn_failed'
  | 'handshake_failed'
  | 'closed';

export class AgentHostError extends Error {
  readonly code: AgentHostErrorCode;
  /** Set when the error is why the session's agent failed (a start that did not come up). */
  readonly failure: AgentFailure | undefined;
  /** A prompt refused because the host stopped the agent to end its turn (`stoppedToEndTurn`). */
  readonly stoppedToEndTurn: boolean;

  constructor(
    code: AgentHostErrorCode,
    message: string,
    options?: { cause?: unknown; failure?: AgentFailure; stoppedToEndTurn?: boolean },
  ) {
    super(message, options);
    this.name = 'AgentHostError';
    this.code = code;
    this.failure = options?.failure;
    this.stoppedToEndTurn = options?.stoppedToEndTurn ?? false;
  }
}

/** The text of any thrown value, for logs and `turn_ended.error`. */
export function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error);
  } catch {
    // Circular or otherwise unserializable: the type is the best we can say.
    return `unserializable ${typeof error}`;
  }
}

/**
 * A request handler's refusal the agent must hear as one, never as an answer
 * it would misread (ACP's `cancelled` says the turn was cancelled): the host
 * answers the agent's request with a JSON-RPC error carrying `message` and,
 * in its data, `code` (an outcome's wire code) and `data`.
 */
export class AgentRequestRefused extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly data: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
    this.name = 'AgentRequestRefused';
  }
}
