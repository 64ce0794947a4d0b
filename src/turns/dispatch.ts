/**
 * Getting a started turn to the agent: start the session's agent process when
 * it is not running (with a session-scoped MCP token), then send the prompt.
 *
 * A message that did not reach the agent is never reported as sent. An agent
 * that could not be started fails its session with the reason (`failSession`);
 * one that runs but did not take the prompt leaves the session free again.
 * Either way the reason is written into the transcript, the message stays as
 * what was tried, and its admission key is released so the same key sent
 * again is a new message.
 */
import { PROMPT_ACCEPT_TIMEOUT_MS } from '../tunables.js';
import { OWNER_GONE_MESSAGES } from './acted-for.js';
import { agentFolder } from './agent-folder.js';
import { issueToken, revokeAgentTokens, revokeIssuedToken } from '../auth/index.js';
import {
  agentFailureOf,
  stoppedToEndTurn,
  type AgentFailure,
  type AgentProfile,
} from '../agents/index.js';
import {
  appendMessage,
  completeTurn,
  failSession,
  getSession,
  getTask,
  getWorkspaceMember,
  releaseTurnAdmissionKeys,
  transitionSession,
  type RepoContext,
  type SessionRecord,
  type TaskRecord,
} from '../store/index.js';
import { pausePoint } from '../support/index.js';
import { failure, storableText, turnFailureNote, type Failure } from '../wire/index.js';
import { writeRetrying } from './durable-write.js';
import { confirmLease } from './fencing.js';
import { sessionFailed } from './session-failure.js';
import type { AgentSlot } from './agent-quota.js';
import type { AgentLaunchDeps, TurnsDeps } from './context.js';

export async function ensureAgent(deps: AgentLaunchDeps, sessionId: string): Promise<void> {
  const { host, store } = deps;
  // An idle stop under way ends the old process first; then a new one starts.
  await deps.idleStops.settled(sessionId);
  // An agent still running here for a session lost while this replica did not run is stopped first.
  await confirmLease(deps, sessionId);
  const readiness = host.readiness(sessionId);
  if (readiness.ready) return;
  // Refused for now, no failure: the stop would end the agent as it started.
  if (deps.stopping?.() === true) throw new ServerStopping();
  const session = await getSession(store, sessionId);
  const task = session && (await getTask(store, session.task_id));
  if (!session || !task) throw new Error('session not found');
  const profile = deps.profiles.get(session.agent_profile);
  if (!profile) {
    // A replica configured without it may not fail a session another one runs: the queue
    // waits for that holder. Only the replica that would take the session fails it.
    if (deps.leases && !(await deps.leases.acquire(sessionId))) throw new AgentRunsElsewhere();
    await deps.leases?.release(sessionId);
    throw startRefused(`unknown agent profile ${session.agent_profile}`);
  }
  const userId = task.created_by;
  if (!userId) throw startRefused('the task has no owner to act for');
  // Removed from the task's workspace since (a removal ends the sessions it finds live): no
  // agent acts for someone who may no longer see what it does.
  if (!(await getWorkspaceMember(store, task.workspace_id, userId))) {
    throw startRefused(OWNER_GONE_MESSAGES.owner_removed, 'owner_removed');
  }
  await deps.starts.serially(sessionId, async () => {
    if (host.isStarted(sessionId)) {
      // Another message (or a restart) started this agent: wait for that start, bounded by it.
      const now = await host.prepare(sessionId);
      if (now.ready) return;
      throw new Error(now.reason);
    }
    await startAgent(deps, { sessionId, userId, profile, session, task });
  });
}

/** Takes the lease and a quota place, ends the previous agent's credential, starts the process. */
async function startAgent(
  deps: AgentLaunchDeps,
  start: {
    sessionId: string;
    userId: string;
    profile: AgentProfile;
    session: SessionRecord;
    task: TaskRecord;
  },
): Promise<void> {
  const { host, store } = deps;
  const { sessionId, userId, profile, session, task } = start;
  // Every agent start passes here, so no path starts one past the quota.
  const place = deps.agentQuota.hold(userId, sessionId);
  if (!place.ok) throw new Error(place.message);
  try {
    // Another replica runs this session's agent: no failure, the queue waits for its holder.
    if (deps.leases && !(await deps.leases.acquire(sessionId))) throw new AgentRunsElsewhere();
    try {
      // The session's previous agent (stopped, or fenced on a replica that hung) is not this
      // one: its credential ends before this one's is issued.
      await revokeAgentTokens(store, sessionId);
      const token = await issueToken(store, { kind: 'agent', userId, sessionId });
      try {
        await pausePoint('agent_start.before_host_start');
        // Checked once more, after the awaits above: a stop that began meanwhile may have closed
        // the host already, and gives the leases back once this start is over. Refused, the
        // session is idle again with its queue, its lease given back below, for whoever runs it.
        if (deps.stopping?.() === true) throw new ServerStopping();
        await host.start({
          sessionId,
          taskId: task.id,
          profile,
          mcp: { url: deps.mcpUrl(), token: token.secret },
          agentSessionId: session.agent_session_id ?? undefined,
          cwd: agentFolder(profile.cwd, task.cwd, deps.agentCwd),
        });
      } catch (error) {
        // A process that never spawned (or a start refused) reports no exit, so nothing else
        // would revoke its token.
        await revokeIssuedToken(store, token.record.id);
        throw error;
      }
      await stopIfDeleted(deps, sessionId);
    } catch (error) {
      // No agent runs here after all: another replica may start it.
      await deps.leases?.release(sessionId);
      throw error;
    }
  } finally {
    // Started: the host counts it from now on. Failed: the place is free again.
    place.slot.release();
  }
}

/**
 * A delete that committed after this start read its session stopped no agent
 * here (the host had none yet), so the agent goes with its session now. From
 * its start on the host counts it, so a delete committing later stops it
 * itself. A session that cannot be read is not taken for alive either.
 */
async function stopIfDeleted(deps: AgentLaunchDeps, sessionId: string): Promise<void> {
  const session = await getSession(deps.store, sessionId).catch(async (error: unknown) => {
    await deps.host.stop(sessionId);
    throw error;
  });
  if (session) return;
  await deps.host.stop(sessionId);
  throw new Error('session not found');
}

/** A start refused for now: another replica holds the session's lease and runs its agent. */
export class AgentRunsElsewhere extends Error {
  constructor() {
    super('another replica runs this session’s agent');
    this.name = 'AgentRunsElsewhere';
  }
}

/** A start refused for now: this server's stop began; the next start or another replica runs it. */
export class ServerStopping extends Error {
  constructor() {
    super('this server is stopping');
    this.name = 'ServerStopping';
  }
}

/**
 * The running-agent place a message needs before it is admitted, taken
 * inside the admission's session write: only a message that will start its
 * session's agent needs one. Released once the dispatch is over, whatever
 * happened (the host then counts the agent, if it runs).
 */
export function agentPlace(deps: AgentLaunchDeps) {
  let slot: AgentSlot | undefined;
  return {
    async claim(
      tx: RepoContext,
      session: Pick<SessionRecord, 'id' | 'task_id'>,
    ): Promise<Failure<'quota_exceeded'> | undefined> {
      if (slot || deps.host.isStarted(session.id)) return undefined;
      const owner = (await getTask(tx, session.task_id))?.created_by;
      // No owner: `ensureAgent` refuses the start with its own reason.
      if (!owner) return undefined;
      const held = deps.agentQuota.hold(owner, session.id);
      if (!held.ok) return held;
      slot = held.slot;
      return undefined;
    },
    /** Hands the held place to whoever starts the agent later; this holder no longer frees it. */
    take(): AgentSlot | undefined {
      const taken = slot;
      slot = undefined;
      return taken;
    },
    release(): void {
      slot?.release();
      slot = undefined;
    },
  };
}

/**
 * A start Clarion itself refuses (no such profile; its person removed from
 * the task's workspace): the session fails with it.
 */
function startRefused(
  message: string,
  code: 'start_failed' | 'owner_removed' = 'start_failed',
): Error & { failure: AgentFailure } {
  return Object.assign(new Error(message), { failure: { code, message } });
}

/** Whether the prompt reached the agent; a refusal says why, as admission answers it. */
export type DispatchResult = { ok: true } | Failure<'session_failed' | 'agent_unavailable'>;

/** A prompt the agent did not take, as its write recorded it. */
export interface Dispatched {
  result: NotTaken;
  /**
   * The host stopped the agent to end this turn before the agent took its
   * prompt (a cancel's grace passed): the session is idle again with no agent,
   * and its queue is the caller's to go on with, as after a cancelled turn.
   */
  agentStopped: boolean;
}

export type NotTaken = Exclude<DispatchResult, { ok: true }>;

/**
 * The agent took the prompt, or it did not and `recorded` is the write that
 * says so: retried while the storage cannot take it, so it may outlast a
 * caller that answers a person sooner (`admitMessage`).
 */
export type Prompted = { taken: true } | { taken: false; recorded: Promise<Dispatched> };

export async function promptTurn(
  deps: TurnsDeps,
  sessionId: string,
  turn: { turnId: string; text: string },
): Promise<Prompted> {
  const controller = new AbortController();
  const timer = deps.timers.setTimeout(() => {
    controller.abort();
  }, PROMPT_ACCEPT_TIMEOUT_MS);
  try {
    await ensureAgent(deps, sessionId);
    await deps.host.prompt({
      sessionId,
      turnId: turn.turnId,
      text: turn.text,
      signal: controller.signal,
    });
    return { taken: true };
  } catch (error) {
    deps.logger.warn({ err: error, session_id: sessionId }, 'prompt was not accepted');
    const recorded = failTurn(deps, sessionId, turn.turnId, error).then((result) => ({
      result,
      agentStopped: stoppedToEndTurn(error),
    }));
    deps.unrecordedRefusals.track(turn.turnId, recorded);
    return { taken: false, recorded };
  } finally {
    timer.cancel();
  }
}

/**
 * Writes why the agent did not take the turn and frees (or fails) the
 * session, retried as an agent's report is (`writeRetrying`): a session left
 * `running` has no turn at its agent whose end would free it, so its queue
 * would wait and a cancel reach nothing. Past the retries' limit it stays
 * so until the recovery after a restart (`resetInterruptedSessions`).
 */
async function failTurn(
  deps: TurnsDeps,
  sessionId: string,
  turnId: string,
  error: unknown,
): Promise<NotTaken> {
  const failed = agentFailureOf(error);
  // An agent's stderr is quoted as given, so it is made storable like any agent text.
  const reason = storableText(
    failed?.message ?? (error instanceof Error ? error.message : String(error)),
  );
  return writeRetrying(deps, sessionId, async (write) => {
    const { tx } = write;
    const session = await getSession(tx, sessionId);
    if (!session) return failure('agent_unavailable');
    const note = await appendMessage(tx, {
      sessionId,
      taskId: session.task_id,
      turnId,
      authorType: 'system',
      type: 'error',
      ...turnFailureNote('not_taken', reason),
    });
    write.added(note);
    await completeTurn(tx, turnId);
    await releaseTurnAdmissionKeys(tx, turnId);
    if (!failed) {
      write.moved(await transitionSession(tx, sessionId, ['running', 'waiting_for_input'], 'idle'));
      return failure('agent_unavailable', reason);
    }
    const moved = await failSession(tx, sessionId, ['idle', 'running', 'waiting_for_input'], {
      code: failed.code,
      message: reason,
    });
    write.moved(moved);
    return sessionFailed(moved ?? session);
  });
}
