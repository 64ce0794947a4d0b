/**
 * What an agent asks of a person in a turn (a permission, an elicitation),
 * handed to Clarion's handlers with the signals that say when the question
 * no longer stands. A handler's `AgentRequestRefused` is answered to the
 * agent as an error; any other throw is logged and answered as a cancel,
 * which is what ACP expects of a question nobody can answer.
 */
import {
  RequestError,
  type CompleteElicitationNotification,
  type CreateElicitationRequest,
  type CreateElicitationResponse,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
} from '@agentclientprotocol/sdk';
import type { Logger } from '../../observability/index.js';
import { ACP_REFUSAL_ERROR_CODE } from '../../wire/index.js';
import { AgentRequestRefused, errorText } from './errors.js';

/**
 * Answers an agent's `session/request_permission`. `signal` aborts when the
 * turn is cancelled or the agent withdraws the request; ACP then expects the
 * `cancelled` outcome. A closed connection does not abort it: it ends the
 * turn too, and that end says why, as for an elicitation's `withdrawn`.
 * `ended` aborts as the host ends the turn (already, for a request outside
 * any turn), before the turn's end is written and the registry hears of it.
 * A handler that throws `AgentRequestRefused` has the agent answered with
 * its error; any other throw is logged and answered `cancelled`.
 */
export type PermissionHandler = (
  sessionId: string,
  request: RequestPermissionRequest,
  context: { turnId: string | undefined; signal: AbortSignal; ended: AbortSignal },
) => Promise<RequestPermissionResponse>;

/**
 * Answers an agent's `elicitation/create` (DESIGN §6). `signal` aborts when
 * the turn is cancelled, the agent withdraws the request or its connection
 * closes; ACP then expects `cancel`. `withdrawn` aborts on the first two
 * only: a closed connection ends the turn too (its exit, or the host once
 * the pipes drained), and that end says why, the agent's exit among others.
 * `ended` aborts as the turn ends. A thrown `AgentRequestRefused` is the
 * agent's answer, as an error.
 */
export type ElicitationHandler = (
  sessionId: string,
  request: CreateElicitationRequest,
  context: {
    turnId: string | undefined;
    signal: AbortSignal;
    withdrawn: AbortSignal;
    ended: AbortSignal;
  },
) => Promise<CreateElicitationResponse>;

/** The agent's `elicitation/complete`: the URL elicitation it names is done. */
export type ElicitationCompleteHandler = (
  sessionId: string,
  notification: CompleteElicitationNotification,
) => void;

/** Until permission requests reach a person, every one is answered `cancelled`. */
export const cancelEveryPermission: PermissionHandler = () =>
  Promise.resolve({ outcome: { outcome: 'cancelled' } });

/** The turn a request came in, as far as its question cares: absent outside any turn. */
export interface AskingTurn {
  readonly turnId: string;
  /** Aborted by the turn's cancel. */
  readonly cancelled: AbortSignal;
  /** Aborted as the turn ends. */
  readonly ended: AbortSignal;
}

export interface AgentRequest<Request> {
  readonly sessionId: string;
  readonly turn: AskingTurn | undefined;
  readonly request: Request;
  /** The SDK's signal for the request: the agent's `$/cancel_request`, or its connection closing. */
  readonly requestSignal: AbortSignal;
  readonly logger: Logger;
}

export async function askPermission(
  handler: PermissionHandler,
  asked: AgentRequest<RequestPermissionRequest>,
): Promise<RequestPermissionResponse> {
  const { turn } = asked;
  const signal = turn
    ? AbortSignal.any([turn.cancelled, agentsCancel(asked.requestSignal)])
    : AbortSignal.abort();
  try {
    return await handler(asked.sessionId, asked.request, {
      turnId: turn?.turnId,
      signal,
      ended: turn?.ended ?? AbortSignal.abort(),
    });
  } catch (error) {
    if (error instanceof AgentRequestRefused) throw refusalToAgent(error);
    asked.logger.warn(
      { sessionId: asked.sessionId, err: errorText(error) },
      'permission handler failed',
    );
    return { outcome: { outcome: 'cancelled' } };
  }
}

export async function askElicitation(
  handler: ElicitationHandler | undefined,
  asked: AgentRequest<CreateElicitationRequest>,
): Promise<CreateElicitationResponse> {
  const { turn } = asked;
  if (!handler) return { action: 'cancel' };
  // Outside any turn the request already stands withdrawn, but its handler still hears of it
  // (to log and note it), as a permission's does: never dropped unseen.
  const signal = turn
    ? AbortSignal.any([turn.cancelled, asked.requestSignal])
    : AbortSignal.abort();
  const withdrawn = turn
    ? AbortSignal.any([turn.cancelled, agentsCancel(asked.requestSignal)])
    : signal;
  try {
    return await handler(asked.sessionId, asked.request, {
      turnId: turn?.turnId,
      signal,
      withdrawn,
      ended: turn?.ended ?? signal,
    });
  } catch (error) {
    if (error instanceof AgentRequestRefused) throw refusalToAgent(error);
    asked.logger.warn(
      { sessionId: asked.sessionId, err: errorText(error) },
      'elicitation handler failed',
    );
    return { action: 'cancel' };
  }
}

/** A handler's refusal as the JSON-RPC error the SDK answers the agent's request with. */
function refusalToAgent(refused: AgentRequestRefused): RequestError {
  return new RequestError(ACP_REFUSAL_ERROR_CODE, refused.message, {
    ...refused.data,
    code: refused.code,
  });
}

/** Aborts when the agent cancels its own request (`$/cancel_request`), not when its connection closes. */
function agentsCancel(requestSignal: AbortSignal): AbortSignal {
  const cancelled = new AbortController();
  const onAbort = () => {
    if (requestSignal.reason instanceof RequestError) cancelled.abort(requestSignal.reason);
  };
  if (requestSignal.aborted) onAbort();
  else requestSignal.addEventListener('abort', onAbort, { once: true });
  return cancelled.signal;
}
