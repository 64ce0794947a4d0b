/**
 * `request_user_action`: an agent asks the person to do something outside
 * (connect a service, sign a form) and waits for Done or Skip. The answer
 * also arms a follow-up message, sent for the person when the agent's turn
 * ends (DESIGN §7). Only an agent's own session can ask.
 *
 * An agent Clarion runs that is killed while it waits closes the call's
 * connection before its exit is seen: that close only hands the request to
 * its turn's end (`connectionLost`), which says the agent exited, as for a
 * permission request or a form. An agent run elsewhere has no such end: its
 * closed connection sweeps the request at once.
 *
 * A client that sends no progress token cannot be kept waiting: nothing
 * resets its request timeout (60 s in the SDKs), and its cancel would sweep
 * the request. So an agent Clarion runs is answered `waiting` within
 * `callWithoutProgressMs` and the request stays open, no longer tied to the
 * call: the person's Done or Skip comes to the agent as the follow-up
 * message its turn's end sends anyway. One asked between turns (no turn of
 * its session runs) has no end to wait for: the answer is sent at once.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  failure,
  requestUserActionInput,
  requestUserActionOutput,
  type ActionOutput,
} from '../../wire/index.js';
import { currentTurn, getSession } from '../../store/index.js';
import type { Store } from '../../store/index.js';
import {
  EXHAUSTED,
  pausePoint,
  systemClock,
  systemTimers,
  withinFreshBudget,
} from '../../support/index.js';
import type { UserInputRegistry } from '../../user-input/index.js';
import type { BoundCall, ToolExtra } from './call-context.js';
import type { CheckedTools } from './checked-tools.js';
import { hasProgressToken, withProgress } from './progress.js';
import { revokedResult, toolFailure, toolResult } from './results.js';

export interface ActionToolDeps {
  store: Store;
  userInputs: UserInputRegistry;
  progress: Parameters<typeof withProgress>[1];
  /** How long a call without a progress token is kept before it is answered `waiting`. */
  callWithoutProgressMs: number;
}

const ACTION_WAITING_MESSAGE =
  'The person has not answered yet. The request stays open in their inbox; their Done or ' +
  'Skip comes to you as a new message once this turn ends. Carry on with other work.';

const ACTION_WAITING_OUTSIDE_TURN_MESSAGE =
  'The person has not answered yet. The request stays open in their inbox; their Done or ' +
  'Skip comes to you as a new message. Carry on with other work.';

export function registerActionTool(
  server: CheckedTools,
  deps: ActionToolDeps,
  authenticated: (
    extra: ToolExtra,
    body: (caller: BoundCall) => Promise<CallToolResult>,
  ) => Promise<CallToolResult>,
): void {
  server.registerTool(
    'request_user_action',
    {
      title: 'Ask the person to do something',
      description:
        'Ask the person to do something outside this conversation and wait until they press ' +
        "Done or Skip. Returns status 'done' or 'skipped' (with the person's reason, if they gave one), 'expired' when nobody answered, " +
        "or 'waiting' when your client cannot wait long: their answer then comes as a new message after this turn.",
      inputSchema: requestUserActionInput,
      outputSchema: requestUserActionOutput,
    },
    (args, extra) =>
      authenticated(extra, async (call) => {
        const { holder, principal, credential } = call;
        if (principal.kind !== 'agent') {
          return toolFailure(
            failure('forbidden', 'only an agent inside a Clarion session can ask this'),
          );
        }
        const session = await getSession(deps.store, principal.sessionId);
        if (!session) return toolFailure(failure('not_found', 'session not found'));
        // Only an agent Clarion runs hears the answer later, in its turn's follow-up.
        const bounded = holder.kind === 'agent' && !hasProgressToken(extra);
        // Taken before the read: a turn that ends after it, before the request opens, is not missed.
        const turnEnd =
          holder.kind === 'agent' ? deps.userInputs.nextTurnEnd(session.id) : undefined;
        // Asked between turns: no turn's end would send the answer, so it goes as it comes.
        const outsideTurn = holder.kind === 'agent' && !(await turnRuns(deps.store, session.id));
        // A race test holds the call here, its turn read as running, while that turn ends.
        await pausePoint('action_tool.after_turn_check');
        const tie = bounded ? untilReturned(call.withdrawn, call.connection) : undefined;
        const created = deps.userInputs.request({
          kind: 'action',
          sessionId: session.id,
          taskId: session.task_id,
          title: args.title,
          instructions: args.instructions,
          url: args.url ?? null,
          outsideTurn,
          ...(turnEnd ? { turnEndSinceCheck: turnEnd } : {}),
          ...(tie
            ? { signal: tie.withdrawn, connectionLost: tie.connection }
            : holder.kind === 'agent'
              ? { signal: call.withdrawn, connectionLost: call.connection }
              : { signal: call.signal }),
        });
        if (!created.ok) {
          tie?.untie();
          return toolFailure(created);
        }
        const outcome = tie
          ? await withinFreshBudget(
              deps.callWithoutProgressMs,
              systemClock(),
              systemTimers,
              () => created.outcome,
            ).finally(tie.untie)
          : await withProgress(extra, deps.progress, () => created.outcome);
        if (outcome === EXHAUSTED) {
          const waiting: ActionOutput = {
            status: 'waiting',
            request_id: created.id,
            message: outsideTurn ? ACTION_WAITING_OUTSIDE_TURN_MESSAGE : ACTION_WAITING_MESSAGE,
          };
          return toolResult(waiting);
        }
        if (outcome.kind === 'decided') {
          const decided: ActionOutput = {
            status: outcome.decision === 'done' ? 'done' : 'skipped',
            ...(outcome.reason === undefined ? {} : { reason: outcome.reason }),
            request_id: created.id,
          };
          return toolResult(decided);
        }
        // Withdrawn because its token was: the agent hears that, not that nobody answered.
        if (credential.revoked.aborted) return revokedResult();
        const reason = outcome.kind === 'refused' ? outcome.reason : 'unexpected';
        const expired: ActionOutput = { status: 'expired', reason, request_id: created.id };
        return toolResult(expired);
      }),
  );
}

/** Whether the session's current turn still runs: one ended (or none) has no end to come. */
async function turnRuns(store: Store, sessionId: string): Promise<boolean> {
  const turn = await currentTurn(store, sessionId);
  return turn !== undefined && turn.completed_at === null;
}

/**
 * Copies of the call's signals that follow it only until `untie`: once the
 * call is answered `waiting`, its end (the response stream closing, the
 * connection going) must not sweep or orphan the request it leaves open.
 */
function untilReturned(withdrawn: AbortSignal, connection: AbortSignal) {
  const copies = { withdrawn: new AbortController(), connection: new AbortController() };
  const follow = (source: AbortSignal, copy: AbortController) => {
    const abort = () => {
      copy.abort(source.reason);
    };
    if (source.aborted) abort();
    else source.addEventListener('abort', abort, { once: true });
    return () => {
      source.removeEventListener('abort', abort);
    };
  };
  const unfollow = [follow(withdrawn, copies.withdrawn), follow(connection, copies.connection)];
  return {
    withdrawn: copies.withdrawn.signal,
    connection: copies.connection.signal,
    untie: () => {
      for (const stop of unfollow) stop();
    },
  };
}
