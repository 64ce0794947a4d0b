/**
 * What agents report becomes transcript and session state: streamed output
 * is appended to the turn, a turn's end closes its tool calls the agent
 * never reported ended and frees the session (and starts the
 * next queued message, with a new agent when a cancelled turn was ended by
 * stopping its agent), and an agent that fails fails its session with the
 * reason and expires its bundles; a turn its agent's exit or a person's Stop
 * ended names, in the write that ends it, each request (consent, action,
 * form) that ended unanswered with it (`user_input_ended`, loss
 * `agent_exited` or `stopped`). A deliberate stop (delete, shutdown) only
 * revokes the agent's credential: it is no failure. The turn a deletion's
 * stop ends waits for the deletion (`CancelRequests.deletionUnderWay`, as it
 * stood when the host reported the end): it writes nothing once the rows are
 * gone, and after a delete that failed it ends cancelled, as a stop to end a
 * turn does. The host's own stop to end a turn also runs the queue, with a
 * new agent: the turn it ended may never have been the agent's, so no turn's
 * end does. Each write is retried while the storage is unavailable
 * (`durable-write.ts`): a report is never dropped for that.
 */
import type { RuntimeEvent, StopReason } from '../agents/index.js';
import type { TurnOutcome } from '../user-input/index.js';
import { revokeAgentTokens } from '../auth/index.js';
import { noteTurnCutByStop } from '../clarification/index.js';
import {
  appendMessage,
  completeTurn,
  forgetDecidedIn,
  currentTurn,
  endOpenToolCalls,
  failSession,
  getSession,
  reviseMessage,
  setAgentSessionId,
  toolCallMessage,
  transitionSession,
  type MessageRecord,
  type RepoContext,
} from '../store/index.js';
import {
  FRESH_START_METADATA,
  FRESH_START_TEXT,
  LIVE_SESSION_STATES,
  storableJson,
  storableText,
  turnCancelledNote,
  turnFailureNote,
} from '../wire/index.js';
import { startNextQueued } from './admission.js';
import type { TurnsDeps } from './context.js';
import { storageRetrying, writeRetrying } from './durable-write.js';
import { endedNote } from './ended-user-inputs.js';

const TURN_OUTCOMES: Record<StopReason, Exclude<TurnOutcome, 'agent_exited'>> = {
  end_turn: 'normal',
  max_tokens: 'normal',
  max_turn_requests: 'normal',
  refusal: 'normal',
  cancelled: 'cancelled',
  failed: 'failed',
};

const OUTPUT_TYPES = {
  text: 'message',
  thought: 'thought',
  tool_call: 'tool_call',
  plan: 'plan',
} as const;

/** What was known when the host reported an event. */
export interface Reported {
  /** A deletion of its session was under way: resolves once that deletion ended, whichever way. */
  duringDeletion?: Promise<void>;
}

export async function handleRuntimeEvent(
  deps: TurnsDeps,
  event: RuntimeEvent,
  reported: Reported = {},
): Promise<void> {
  switch (event.type) {
    case 'agent_output':
      return recordOutput(deps, event);
    case 'turn_ended':
      return endTurn(deps, event, reported);
    case 'agent_session':
      await agentSessionOpened(deps, event);
      deps.idleStops.arm(deps, event.sessionId);
      return;
    case 'agent_exited':
      return agentExited(deps, event);
  }
}

type AgentOutput = Extract<RuntimeEvent, { type: 'agent_output' }>;

async function recordOutput(deps: TurnsDeps, reported: AgentOutput): Promise<void> {
  // An agent's words cannot be refused, only kept as text the database stores as given.
  const event = {
    ...reported,
    content: storableText(reported.content),
    metadata: storableJson(reported.metadata),
  };
  if (event.kind !== 'tool_call' && event.content.trim() === '') return;
  await writeRetrying(deps, event.sessionId, async (write) => {
    const { tx } = write;
    const session = await getSession(tx, event.sessionId);
    if (!session) return;
    const revised = await reviseToolCall(tx, event);
    if (revised) {
      write.updated(revised);
      return;
    }
    // Words are what a transcript row is for; a blank one helps nobody.
    if (event.content.trim() === '') return;
    const message = await appendMessage(tx, {
      sessionId: event.sessionId,
      taskId: session.task_id,
      turnId: event.turnId,
      authorType: 'agent',
      type: OUTPUT_TYPES[event.kind],
      content: event.content,
      metadata: event.metadata,
    });
    write.added(message);
  });
}

/**
 * An agent reports one tool call many times (announced, in progress,
 * completed), often with only a new status. Later reports update the call's
 * row rather than adding rows, keeping its title when they carry none.
 */
async function reviseToolCall(
  tx: RepoContext,
  event: AgentOutput,
): Promise<MessageRecord | undefined> {
  const toolCallId = event.metadata.toolCallId;
  if (event.kind !== 'tool_call' || typeof toolCallId !== 'string') return undefined;
  const known = await toolCallMessage(tx, event.turnId, toolCallId);
  if (!known) return undefined;
  const reported = Object.entries(event.metadata).filter(([, value]) => value !== undefined);
  return reviseMessage(tx, known.id, {
    content: event.content.trim() === '' ? known.content : event.content,
    metadata: { ...known.metadata, ...Object.fromEntries(reported) },
  });
}

/**
 * Keeps the agent's own session ID for a later `session/load`. An agent that
 * had a conversation here and opened a new one instead (it cannot load)
 * leaves a note: it does not remember what came before.
 */
async function agentSessionOpened(
  deps: TurnsDeps,
  event: Extract<RuntimeEvent, { type: 'agent_session' }>,
): Promise<void> {
  await writeRetrying(deps, event.sessionId, async (write) => {
    const { tx } = write;
    const session = await getSession(tx, event.sessionId);
    if (!session) return;
    const earlier = session.agent_session_id;
    await setAgentSessionId(tx, event.sessionId, event.agentSessionId);
    if (event.loaded || earlier === null || earlier === event.agentSessionId) return;
    // Rows belong to a turn: the note goes with the last one, the conversation it could not load.
    const last = await currentTurn(tx, event.sessionId);
    if (!last) return;
    write.added(
      await appendMessage(tx, {
        sessionId: event.sessionId,
        taskId: session.task_id,
        turnId: last.id,
        authorType: 'system',
        type: 'status',
        content: FRESH_START_TEXT,
        metadata: { ...FRESH_START_METADATA },
      }),
    );
  });
}

type TurnEnded = Extract<RuntimeEvent, { type: 'turn_ended' }>;

async function endTurn(deps: TurnsDeps, reported: TurnEnded, when: Reported): Promise<void> {
  // A deletion stops the agent, and a turn's end waits for its outcome: the rows gone, there is
  // no turn left to end; kept (the delete failed), the turn ended as a stopped one if it ended
  // while the deletion ran, which its stop may have caused; as it was reported if before.
  const deletion = when.duringDeletion ?? deps.cancellations.deletionUnderWay(reported.sessionId);
  if (deletion) await deletion;
  const event = when.duringDeletion ? stoppedByDeletion(reported) : reported;
  // The agent's process exited under the turn, and no stop of this server's caused it.
  const exited = event.agentExited === true && !interruptedByStop(deps, event);
  const ended = await writeRetrying(deps, event.sessionId, async (write) => {
    const { tx } = write;
    const session = await getSession(tx, event.sessionId);
    if (!session) return false;
    // Read once: the note and the decisions kept for the next start must agree.
    const cutByStop = interruptedByStop(deps, event);
    if (cutByStop) {
      // Not the agent's failure nor anyone's cancel: the person must send the message again, or
      // the answer the agent may not have received, as after a crash.
      await noteTurnCutByStop(write, event.turnId, 'restart');
    } else if (event.stopReason === 'cancelled') {
      write.added(
        await appendMessage(tx, {
          sessionId: event.sessionId,
          taskId: session.task_id,
          turnId: event.turnId,
          authorType: 'system',
          type: 'status',
          ...turnCancelledNote(deps.cancellations.take(event.sessionId, event.turnId)),
        }),
      );
      // What the Stop ended unanswered, named here as an exit's are; an exit's own note says it.
      if (!exited) {
        for (const view of deps.userInputs.endedByTurnEnd(event.sessionId, 'cancelled')) {
          write.added(await appendMessage(tx, endedNote(view, event.turnId, 'stopped')));
        }
      }
    }
    // Its agent was stopped because the person it acted for was deleted or removed: the
    // session's failure says so, and the exit that stop brought is no failure of the agent's turn.
    const endedForOwner =
      session.failure_code === 'owner_deleted' || session.failure_code === 'owner_removed';
    if (event.error && !endedForOwner && !cutByStop) {
      write.added(
        await appendMessage(tx, {
          sessionId: event.sessionId,
          taskId: session.task_id,
          turnId: event.turnId,
          authorType: 'system',
          type: 'error',
          ...turnFailureNote('agent_error', event.error),
        }),
      );
    }
    // Nothing of an ended turn runs: a call its agent never reported ended (it was stopped,
    // or it died) must not read as running, as after a restart (`interrupted-turns.ts`).
    for (const closed of await endOpenToolCalls(tx, event.turnId)) write.updated(closed);
    if (exited) {
      // Named here, once, in the write that ends the turn: the registry ends them right after.
      for (const view of deps.userInputs.endedByTurnEnd(event.sessionId, 'agent_exited')) {
        write.added(await appendMessage(tx, endedNote(view, event.turnId, 'agent_exited')));
      }
    }
    await completeTurn(tx, event.turnId);
    // The agent went on past the decisions made in this turn: no restart need doubt them. One
    // this server's stop cut off may not have heard them: the next start says so, as after a crash.
    // A Done still owed as a follow-up has not reached it either: kept until that settles.
    if (!cutByStop) {
      await forgetDecidedIn(
        tx,
        event.sessionId,
        event.turnId,
        owedFollowUps(deps, event.sessionId),
      );
    }
    write.moved(
      await transitionSession(tx, event.sessionId, ['running', 'waiting_for_input'], 'idle'),
    );
    return true;
  });
  // A session that is gone has nothing left to free, detach or run.
  if (!ended) return;
  // The turn is over, so no live wait can remain: open questions stay answerable, detached.
  await deps.clarification.detachSession(event.sessionId);
  deps.userInputs.turnEnded(
    event.sessionId,
    exited ? 'agent_exited' : TURN_OUTCOMES[event.stopReason],
  );
  // A follow-up the turn's end made due goes before the next queued message.
  await deps.userInputs.drain(event.sessionId);
  // A turn that failed because the agent died is followed by its exit; do not restart it here.
  if (deps.host.isStarted(event.sessionId)) {
    deps.idleStops.arm(deps, event.sessionId);
    await startNextQueued(deps, event.sessionId);
  } else if (event.stopReason === 'cancelled') {
    // The agent did not end its turn after the cancel, so the host stopped it (no failure):
    // the queue goes on, starting a new agent for its next message.
    await startNextQueued(deps, event.sessionId);
  }
}

/**
 * First and on its own: the credential must die with the process even if
 * the session write fails. A revoke the storage keeps refusing is given up
 * (the session's next start revokes it before issuing another) rather than
 * leave the session looking run by an agent that is gone.
 */
async function endCredential(deps: TurnsDeps, sessionId: string): Promise<void> {
  try {
    await storageRetrying(
      deps,
      sessionId,
      'agent token not revoked: storage unavailable; retrying',
      () => revokeAgentTokens(deps.store, sessionId),
    );
  } catch (error) {
    deps.logger.error({ err: error, session_id: sessionId }, 'agent token not revoked');
  }
}

/** The session's requests whose decision waits to go to its agent as a follow-up. */
function owedFollowUps(deps: TurnsDeps, sessionId: string): string[] {
  return deps.userInputs
    .snapshot(new Set([sessionId]))
    .filter((view) => view.status === 'due')
    .map((view) => view.id);
}

/** A turn this server's stop ended (its agent stopped under it), not one the agent ended. */
function interruptedByStop(deps: TurnsDeps, event: TurnEnded): boolean {
  return deps.stopping?.() === true && TURN_OUTCOMES[event.stopReason] !== 'normal';
}

/**
 * A turn a deletion's stop ended is no failure of the agent, whatever the
 * exit made of it: it is cancelled, as a turn ended by stopping its agent is,
 * so the queue goes on. A turn the agent ended on its own meanwhile keeps
 * its reason.
 */
function stoppedByDeletion(event: TurnEnded): TurnEnded {
  if (event.stopReason !== 'failed') return event;
  const { type, sessionId, turnId } = event;
  return { type, sessionId, turnId, stopReason: 'cancelled' };
}

async function agentExited(
  deps: TurnsDeps,
  event: Extract<RuntimeEvent, { type: 'agent_exited' }>,
): Promise<void> {
  const { sessionId, failure, stoppedToEndTurn } = event;
  const superseded = await deps.starts.serially(sessionId, async () => {
    // A newer agent started here since this one exited: its start ended this one's credential,
    // and the lease, the idle deadline and the session are the newer agent's.
    if (deps.host.isStarted(sessionId)) return true;
    deps.idleStops.forget(sessionId);
    await endCredential(deps, sessionId);
    // Another replica may start this session's agent from now on. A release the storage
    // refuses is tried again at the replica's next beat; the session's failure need not wait.
    await deps.leases?.release(sessionId).catch((error: unknown) => {
      deps.logger.warn({ err: error, session_id: sessionId }, 'agent lease not released; retried');
    });
    return false;
  });
  if (superseded) return;
  if (!failure) {
    // The host stopped it to end a turn it had not taken, or did not end, after a cancel or
    // after its prompt's caller gave up: no turn's end runs the queue then (the prompt was
    // refused, freeing the session, perhaps long before), so the exit does, with a new agent.
    // Any other deliberate stop (delete, shutdown, idle, fencing) leaves the queue alone.
    if (stoppedToEndTurn) await startNextQueued(deps, sessionId);
    return;
  }
  await writeRetrying(deps, sessionId, async (write) => {
    write.moved(
      await failSession(write.tx, sessionId, LIVE_SESSION_STATES, {
        code: failure.code,
        message: storableText(failure.message),
      }),
    );
  });
  await deps.clarification.expireSession(sessionId, failure.code);
}
