/**
 * Message admission (DESIGN §2): a user message enters a session exactly once
 * per admission key. Sent now (a new turn), queued behind a running turn, or
 * refused; a repeat with the same key returns the first outcome and never adds
 * a second message or turn. Queued messages start when the turn ends. A
 * session that reads idle while its agent still has a turn (one whose
 * prompt's caller gave up waiting for acceptance, in the grace before the
 * host stops the agent) queues too: a state of the server's own is never a
 * reason to refuse a person's message.
 *
 * A person's message to a session whose agent is not running is queued, and
 * the session shows `starting` while its agent starts after the answer: the
 * message is durable in the queue and either runs once the agent is up or
 * stays there on a failed session, for its restart (never "sent" unless the
 * agent has it).
 */
import { ADMISSION_START_WAIT_MS, MESSAGE_ANSWER_AFTER_REFUSAL_MS } from '../tunables.js';
import { EXHAUSTED, pause, withinFreshBudget, type Timers } from '../support/index.js';
import { agentFailureOf } from '../agents/index.js';
import type { Principal } from '../auth/index.js';
import type { SessionWrite } from '../events/index.js';
import {
  currentTurn,
  failSession,
  idleSessionsWithQueue,
  listQueue,
  appendMessage,
  canSeeSession,
  deleteQueued,
  enqueueMessage,
  getSession,
  messageByAdmissionKey,
  queuedByAdmissionKey,
  startTurn,
  takeNextQueued,
  transitionSession,
  type MessageRecord,
  type QueuedMessage,
  type RepoContext,
  type SessionScope,
} from '../store/index.js';
import type { TurnsDeps } from './context.js';
import { failure, storableText, type Failure } from '../wire/index.js';
import type { AgentSlot } from './agent-quota.js';
import {
  AgentRunsElsewhere,
  agentPlace,
  ensureAgent,
  promptTurn,
  type DispatchResult,
  type Dispatched,
  type NotTaken,
} from './dispatch.js';
import { writeRetrying } from './durable-write.js';
import { confirmLease } from './fencing.js';
import { sessionFailed } from './session-failure.js';
import { deriveSessionInputMode } from './input-mode.js';
import { dropQueuedOfLeftAuthors, refusedForLeftAuthor } from './queue-standing.js';

/**
 * The states a message is sent from (`deriveSessionInputMode`): idle, or
 * waiting on a question its agent asked between turns.
 */
const SENDABLE_STATES = ['idle', 'waiting_for_input'] as const;

/** Whether the session's current turn still runs (not ended). */
async function turnRunning(tx: RepoContext, sessionId: string): Promise<boolean> {
  const turn = await currentTurn(tx, sessionId);
  return turn !== undefined && turn.completed_at === null;
}

/**
 * Sent now, queued, or refused: a session that cannot take messages
 * (`session_refused`, with the reason), one whose agent failed
 * (`session_failed`, with the failure: also when this very message could
 * not start it), one whose running agent did not take the message
 * (`agent_unavailable`), one that is busy (`session_busy`; only machine
 * messages, which never wait in the persisted queue), none the caller can
 * see, or one its agent did not take while the storage could not record
 * that (`storage_unavailable`). `sent` means the agent has the message.
 */
export type AdmissionResult =
  | { ok: true; outcome: 'sent'; message: MessageRecord }
  | { ok: true; outcome: 'queued'; item: QueuedMessage }
  | Failure<
      | 'session_refused'
      | 'session_failed'
      | 'agent_unavailable'
      | 'session_busy'
      | 'not_found'
      | 'quota_exceeded'
      | 'storage_unavailable'
    >;

/** A person's message as admitted; an agent's is refused (`admitMessage`). */
export type MessageAdmission = AdmissionResult | Failure<'person_required'>;

const SESSION_NOT_FOUND = failure('not_found', 'session not found');

const NOT_TAKEN_UNRECORDED = failure(
  'storage_unavailable',
  'the agent did not take the message, and the storage cannot record that now; retry shortly',
);

interface Admitted {
  result: AdmissionResult;
  /** Set when this call started a turn that still has to reach the agent. */
  dispatch?: { turnId: string; text: string };
  /** Set when this call queued the message and made the session `starting`. */
  start?: true;
}

/** Whether the session's agent runs and can be given a prompt (not being stopped for idleness). */
function agentRuns(deps: TurnsDeps, sessionId: string): boolean {
  return deps.host.isStarted(sessionId) && !deps.idleStops.isStopping(sessionId);
}

/**
 * Whether the agent of a session that reads idle still has a turn: one whose
 * prompt's caller gave up waiting for acceptance (`promptTurn`), which the
 * agent may take yet until the host stops it after its grace. A message then
 * waits in the queue, as behind any turn; that turn's end or the agent's
 * exit runs it (`runtime-events.ts`).
 */
function agentBusy(deps: TurnsDeps, sessionId: string): boolean {
  const readiness = deps.host.readiness(sessionId);
  return !readiness.ready && readiness.busy === true;
}

/** Inside a session write: decides and writes the admission, reporting what it added. */
async function admitInWrite(
  deps: TurnsDeps,
  write: SessionWrite,
  input: {
    text: string;
    admissionKey: string;
    userId: string | null;
    metadata?: Record<string, unknown>;
  },
  options: {
    queueWhenBusy: boolean;
    /** A message that starts its session's agent needs a place first (`agentPlace`). */
    place?: ReturnType<typeof agentPlace>;
    /** Queue it and start the agent after answering, when the agent is not running. */
    startLater?: boolean;
  },
): Promise<Admitted> {
  const { tx, sessionId } = write;
  const session = await getSession(tx, sessionId);
  if (!session) return { result: SESSION_NOT_FOUND };
  const sent = await messageByAdmissionKey(tx, sessionId, input.admissionKey);
  // The agent did not take it; the store says so (and frees the key) once its write lands.
  if (sent && deps.unrecordedRefusals.has(sent.turn_id)) return { result: NOT_TAKEN_UNRECORDED };
  if (sent) return { result: { ok: true, outcome: 'sent', message: sent } };
  const queued = await queuedByAdmissionKey(tx, sessionId, input.admissionKey);
  // A repeat while the first one's start is under way hears what the first hears.
  if (queued) {
    return {
      result: { ok: true, outcome: 'queued', item: queued },
      ...(session.state === 'starting' ? { start: true as const } : {}),
    };
  }

  // Before the mode: a failed session says why, and that a restart may help.
  if (session.state === 'failed') return { result: sessionFailed(session) };
  const mode = deriveSessionInputMode({
    ...session,
    turnRunning: session.state !== 'waiting_for_input' || (await turnRunning(tx, sessionId)),
  });
  if (mode.mode === 'refuse') {
    return { result: failure('session_refused', undefined, { reason: mode.reason }) };
  }
  // A stopping server starts no turn: the message waits in the store for whoever runs it next.
  const stopping = deps.stopping?.() === true;
  if (mode.mode === 'queue' || agentBusy(deps, sessionId) || stopping) {
    if (!options.queueWhenBusy) {
      return { result: failure('session_busy', undefined, { reason: 'busy' }) };
    }
    const item = await enqueueMessage(tx, {
      sessionId,
      taskId: session.task_id,
      content: input.text,
      admissionKey: input.admissionKey,
      createdBy: input.userId,
    });
    write.queueChanged();
    // Told with this commit: one after the stop's release would otherwise wait for the next message.
    if (stopping) await deps.leases?.leaveQueue(tx);
    return { result: { ok: true, outcome: 'queued', item } };
  }
  // Refused at the quota before anything is written: no message, no turn.
  const refused = await options.place?.claim(tx, session);
  if (refused) return { result: refused };
  if (options.startLater && !agentRuns(deps, sessionId)) {
    const item = await enqueueMessage(tx, {
      sessionId,
      taskId: session.task_id,
      content: input.text,
      admissionKey: input.admissionKey,
      createdBy: input.userId,
    });
    write.queueChanged();
    write.moved(await transitionSession(tx, sessionId, SENDABLE_STATES, 'starting'));
    return { result: { ok: true, outcome: 'queued', item }, start: true };
  }
  const turn = await startTurn(tx, { sessionId, taskId: session.task_id });
  const message = await appendMessage(tx, {
    sessionId,
    taskId: session.task_id,
    turnId: turn.id,
    authorType: 'user',
    type: 'message',
    content: input.text,
    admissionKey: input.admissionKey,
    metadata: { ...(input.userId ? { user_id: input.userId } : {}), ...input.metadata },
  });
  write.added(message);
  write.moved(await transitionSession(tx, sessionId, SENDABLE_STATES, 'running'));
  return {
    result: { ok: true, outcome: 'sent', message },
    dispatch: { turnId: turn.id, text: input.text },
  };
}

/**
 * The admission's result once its turn reached the agent, or why it did not.
 * A person waiting on the answer (`answerWithin`) hears within that bound even
 * while the write saying the agent did not take it is still retried: that
 * write goes on to its own limit, and the person is told the storage cannot
 * take it now.
 */
async function dispatched(
  deps: TurnsDeps,
  sessionId: string,
  admitted: Admitted,
  answerWithin?: 'person',
): Promise<AdmissionResult> {
  if (!admitted.dispatch) return admitted.result;
  const prompted = await promptAdmitted(deps, sessionId, admitted.dispatch);
  if (prompted.taken) return admitted.result;
  const recorded = afterNotTaken(deps, sessionId, admitted.dispatch.turnId, prompted.recorded);
  if (answerWithin === undefined) return recorded;
  const answered = await withinFreshBudget(
    MESSAGE_ANSWER_AFTER_REFUSAL_MS,
    deps.store.clock,
    deps.timers,
    () => recorded,
  );
  if (answered !== EXHAUSTED) return answered;
  recorded.catch((error: unknown) => {
    deps.logger.error(
      { err: error, session_id: sessionId },
      'the agent did not take a message, and that could not be written',
    );
  });
  return NOT_TAKEN_UNRECORDED;
}

/** Sends an admitted turn's prompt: its turn is the current one now, so waits on the session's older open questions end. */
function promptAdmitted(
  deps: TurnsDeps,
  sessionId: string,
  turn: { turnId: string; text: string },
): ReturnType<typeof promptTurn> {
  void deps.clarification.turnStarted(sessionId);
  return promptTurn(deps, sessionId, turn);
}

/** Sends an admitted turn's prompt (`afterNotTaken` says what follows a refusal). */
async function dispatchAdmitted(
  deps: TurnsDeps,
  sessionId: string,
  turn: { turnId: string; text: string },
): Promise<DispatchResult> {
  const prompted = await promptAdmitted(deps, sessionId, turn);
  return prompted.taken
    ? { ok: true }
    : afterNotTaken(deps, sessionId, turn.turnId, prompted.recorded);
}

/**
 * A turn's prompt refused because the host stopped the agent to end the turn
 * (its cancel's grace passed before the agent took the prompt) leaves the
 * session idle with no agent: once that is written, the queue goes on with a
 * new one, as after a cancelled turn's end. The exit says so too
 * (`runtime-events.ts`); whichever finds the session idle runs it.
 */
async function afterNotTaken(
  deps: TurnsDeps,
  sessionId: string,
  turnId: string,
  recorded: Promise<Dispatched>,
): Promise<NotTaken> {
  const { result, agentStopped } = await recorded;
  if (agentStopped) {
    // The cancel that stop answered is spent on this turn, which no turn's end reports.
    deps.cancellations.take(sessionId, turnId);
    await startNextQueued(deps, sessionId);
  }
  return result;
}

/**
 * Admits one person's message into a session they can see. An agent is
 * refused before any read, whatever reaches this: its words would be sent
 * as a person's (author `user`), to itself.
 */
export async function admitMessage(
  deps: TurnsDeps,
  principal: Principal,
  sessionId: string,
  input: { text: string; admissionKey: string },
): Promise<MessageAdmission> {
  if (principal.kind !== 'user') {
    return failure('person_required', 'only a person sends a message to a session');
  }
  if (!(await canSeeSession(deps.store, principal, sessionId))) return SESSION_NOT_FOUND;
  await confirmLease(deps, sessionId);
  const { userId } = principal;
  const place = agentPlace(deps);
  try {
    const admitted = await deps.sessions.write(sessionId, (write) =>
      admitInWrite(
        deps,
        write,
        { ...input, userId },
        { queueWhenBusy: true, place, startLater: true },
      ),
    );
    if (admitted.start) {
      const started =
        deps.starts.current(sessionId) ?? startAgentLater(deps, sessionId, place.take());
      return await answerAfterStart(deps, sessionId, input.admissionKey, admitted.result, started);
    }
    return await dispatched(deps, sessionId, admitted, 'person');
  } finally {
    place.release();
  }
}

/**
 * Starts a `starting` session's agent after the admission answered, then
 * runs its queue. A start that fails fails the session with the reason; its
 * queued messages stay for a restart. The place (quota) is held until then.
 */
export function startAgentLater(
  deps: TurnsDeps,
  sessionId: string,
  slot?: AgentSlot,
): Promise<void> | undefined {
  const begun = deps.starts.begin(sessionId, async (leftStarting) => {
    try {
      await startThenDrain(deps, sessionId, leftStarting);
    } catch (error) {
      deps.logger.error({ err: error, session_id: sessionId }, 'starting the agent failed');
    } finally {
      slot?.release();
    }
  });
  if (!begun) slot?.release();
  return begun;
}

/**
 * What the admission of a message that starts the agent answers: `sent` if
 * the agent started and took it within `ADMISSION_START_WAIT_MS`, else
 * `queued` (it runs once the agent is up). A start that failed in that time
 * is refused as today (409 with the reason) and the message taken back out
 * of the queue, since its sender hears it; a later failure leaves it queued.
 */
async function answerAfterStart(
  deps: TurnsDeps,
  sessionId: string,
  admissionKey: string,
  queued: AdmissionResult,
  started: Promise<void> | undefined,
): Promise<AdmissionResult> {
  if (!started || !(await endsInTime(deps.timers, started))) return queued;
  return deps.sessions.write(sessionId, async (write): Promise<AdmissionResult> => {
    const { tx } = write;
    const sent = await messageByAdmissionKey(tx, sessionId, admissionKey);
    if (sent) return { ok: true, outcome: 'sent', message: sent };
    const session = await getSession(tx, sessionId);
    if (!session) return SESSION_NOT_FOUND;
    const item = await queuedByAdmissionKey(tx, sessionId, admissionKey);
    if (session.state === 'failed') {
      if (item && (await deleteQueued(tx, sessionId, item.id))) write.queueChanged();
      return sessionFailed(session);
    }
    if (item) return { ok: true, outcome: 'queued', item };
    // Its turn started but the agent did not take it (the transcript says why).
    return failure('agent_unavailable', 'the agent did not take this message');
  });
}

/**
 * Whether `started` (a start from `startAgentLater`, which never rejects)
 * ended within `ADMISSION_START_WAIT_MS` on the turns' timers: how long a
 * request that starts an agent waits for it before answering that it is
 * starting.
 */
export async function endsInTime(timers: Timers, started: Promise<unknown>): Promise<boolean> {
  const wait = new AbortController();
  try {
    return await Promise.race([
      started.then(() => true),
      pause(timers, ADMISSION_START_WAIT_MS, wait.signal).then(() => false),
    ]);
  } finally {
    wait.abort();
  }
}

/**
 * `leftStarting` is called in the write that moves the session out of
 * `starting`, under its lock: an admission that then reads it idle starts the
 * agent anew instead of joining this start, which no longer runs its message.
 *
 * That write is retried as an agent's report is (`writeRetrying`): nothing
 * else moves a session out of `starting`, so one lost to a passing storage
 * fault would leave its queue waiting for good. Past the retries' limit it
 * stays `starting` until the recovery after a restart makes it idle and runs
 * its queue (`resetInterruptedSessions`, `drainQueuesAfterRestart`).
 */
async function startThenDrain(
  deps: TurnsDeps,
  sessionId: string,
  leftStarting: () => void,
): Promise<void> {
  try {
    await ensureAgent(deps, sessionId);
  } catch (error) {
    const failed = agentFailureOf(error);
    // A start abandoned on purpose (delete, shutdown) or refused for now is no warning.
    if (failed) deps.logger.warn({ err: error, session_id: sessionId }, 'the agent did not start');
    else deps.logger.info({ err: error, session_id: sessionId }, 'the agent start was abandoned');
    await writeRetrying(deps, sessionId, async (write) => {
      leftStarting();
      // No failure said: stopped on purpose (delete, shutdown) or refused for now (quota).
      // The session is idle again with its queue; the next message or start-up tries again.
      write.moved(
        failed
          ? await failSession(write.tx, sessionId, ['starting'], {
              code: failed.code,
              message: storableText(failed.message),
            })
          : await transitionSession(write.tx, sessionId, ['starting'], 'idle'),
      );
      // Its holder runs the queue, but only once the session reads idle: woken with this commit.
      if (error instanceof AgentRunsElsewhere) {
        await deps.leases?.tellHolder(write.tx, sessionId, 'queue');
      }
    });
    return;
  }
  await writeRetrying(deps, sessionId, async (write) => {
    leftStarting();
    write.moved(await transitionSession(write.tx, sessionId, ['starting'], 'idle'));
  });
  await startNextQueued(deps, sessionId);
}

/**
 * The queue driver: once a turn has ended, starts the next queued message.
 * Taking it off the queue and starting its turn happen under the session lock,
 * so a concurrent delete either wins before or finds it gone.
 */
export async function startNextQueued(deps: TurnsDeps, sessionId: string): Promise<void> {
  // A stopping server leaves the queue in the store: the next start, or the replica that takes
  // the session, runs it; a turn started now would be cut by the stop.
  if (deps.stopping?.() === true) return;
  // A queue driver of a session lost while this replica did not run stops here.
  await confirmLease(deps, sessionId);
  if (deps.leases?.isFenced(sessionId)) return;
  // Tried again while the storage cannot take it: nothing else runs an idle session's queue.
  const admitted = await writeRetrying(
    deps,
    sessionId,
    async (write): Promise<Admitted | 'start' | undefined> => {
      const session = await getSession(write.tx, sessionId);
      if (session?.state !== 'idle') return undefined;
      // Before anything starts for them: a message its author may no longer send is dropped.
      await dropQueuedOfLeftAuthors(write);
      if (!agentRuns(deps, sessionId)) {
        // Its agent was stopped (idle, or a restart of Clarion): start it, then the queue goes on.
        if ((await listQueue(write.tx, sessionId)).length === 0) return undefined;
        write.moved(await transitionSession(write.tx, sessionId, ['idle'], 'starting'));
        return 'start';
      }
      // Taken now, its prompt would be refused by an agent that still has a turn: it waits.
      if (agentBusy(deps, sessionId)) return undefined;
      const next = await takeNextQueued(write.tx, sessionId);
      if (!next) return undefined;
      write.queueChanged();
      return admitInWrite(
        deps,
        write,
        { text: next.content, admissionKey: next.admission_key, userId: next.created_by },
        { queueWhenBusy: false },
      );
    },
  );
  if (admitted === 'start') void startAgentLater(deps, sessionId);
  else if (admitted?.dispatch) await dispatchAdmitted(deps, sessionId, admitted.dispatch);
}

/**
 * A machine-owned message (a user-input follow-up): admitted now or not at
 * all, never written to the persisted queue, keyed so repeats are one message.
 * Sent for the person `userId` (whose answer it carries), and recorded as
 * theirs like any message they send; refused once they no longer belong to
 * the session's workspace.
 */
export async function admitMachineMessage(
  deps: TurnsDeps,
  sessionId: string,
  input: {
    text: string;
    admissionKey: string;
    userId: string;
    metadata: Record<string, unknown>;
  },
): Promise<AdmissionResult> {
  const place = agentPlace(deps);
  try {
    const admitted = await deps.sessions.write(sessionId, async (write): Promise<Admitted> => {
      const refused = await refusedForLeftAuthor(write, input.userId);
      if (refused) return { result: refused };
      return admitInWrite(deps, write, input, { queueWhenBusy: false, place });
    });
    return await dispatched(deps, sessionId, admitted);
  } finally {
    place.release();
  }
}

/**
 * Start-up: sessions that were running when Clarion stopped are idle again
 * (`resetInterruptedSessions`); those with queued messages start their agent
 * now, so the queue runs without anything else happening. The others start
 * theirs lazily, on their next prompt.
 */
export async function drainQueuesAfterRestart(
  deps: TurnsDeps,
  scope: SessionScope = { kind: 'all' },
): Promise<void> {
  for (const sessionId of await idleSessionsWithQueue(deps.store, scope)) {
    await startNextQueued(deps, sessionId);
  }
}
