/**
 * Getting a started turn to the agent: start the session's agent process when
 * it is not running (with a session-scoped MCP token), then send the prompt.
 * A failure is written into the transcript and the session is free again; the
 * admitted message itself stays, so a retry with its key does not duplicate it.
 */
import { PROMPT_ACCEPT_TIMEOUT_MS } from '../tunables.js';
import { issueToken } from '../auth/index.js';
import {
  appendMessage,
  completeTurn,
  getSession,
  getTask,
  transitionSession,
  type RepoContext,
  type SessionRecord,
} from '../store/index.js';
import type { Failure } from '../wire/index.js';
import type { AgentSlot } from './agent-quota.js';
import type { AgentLaunchDeps, TurnsDeps } from './context.js';

export async function ensureAgent(deps: AgentLaunchDeps, sessionId: string): Promise<void> {
  const { host, store } = deps;
  const readiness = host.readiness(sessionId);
  if (readiness.ready) return;
  const session = await getSession(store, sessionId);
  const task = session && (await getTask(store, session.task_id));
  if (!session || !task) throw new Error('session not found');
  const profile = deps.profiles.get(session.agent_profile);
  if (!profile) throw new Error(`unknown agent profile ${session.agent_profile}`);
  if (host.isStarted(sessionId)) {
    throw new Error(readiness.reason);
  }
  const userId = task.created_by;
  if (!userId) throw new Error('the task has no owner to act for');
  // Every agent start passes here, so no path starts one past the quota.
  const place = deps.agentQuota.hold(userId, sessionId);
  if (!place.ok) throw new Error(place.message);
  try {
    const token = await issueToken(store, { kind: 'agent', userId, sessionId });
    await host.start({
      sessionId,
      taskId: task.id,
      profile,
      mcp: { url: deps.mcpUrl(), token: token.secret },
      agentSessionId: session.agent_session_id ?? undefined,
      cwd: deps.agentCwd,
    });
  } finally {
    // Started: the host counts it from now on. Failed: the place is free again.
    place.slot.release();
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
    release(): void {
      slot?.release();
      slot = undefined;
    },
  };
}

export async function dispatchTurn(
  deps: TurnsDeps,
  sessionId: string,
  turn: { turnId: string; text: string },
): Promise<void> {
  const controller = new AbortController();
  const timer = setTimeout(() => {
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
  } catch (error) {
    deps.logger.warn({ err: error, session_id: sessionId }, 'prompt was not accepted');
    await failTurn(deps, sessionId, turn.turnId, error);
  } finally {
    clearTimeout(timer);
  }
}

async function failTurn(deps: TurnsDeps, sessionId: string, turnId: string, error: unknown) {
  await deps.sessions.write(sessionId, async (write) => {
    const { tx } = write;
    const session = await getSession(tx, sessionId);
    if (!session) return;
    const note = await appendMessage(tx, {
      sessionId,
      taskId: session.task_id,
      turnId,
      authorType: 'system',
      type: 'error',
      content: `The agent did not take this message: ${error instanceof Error ? error.message : String(error)}`,
    });
    write.added(note);
    await completeTurn(tx, turnId);
    write.moved(await transitionSession(tx, sessionId, ['running', 'waiting_for_input'], 'idle'));
  });
}
