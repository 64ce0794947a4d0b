/**
 * The seam between Clarion and agent processes (DESIGN §6). Services talk to
 * agents only through this interface; the ACP host implements it for real
 * agents, one process per running session.
 *
 * A prompt resolves on acceptance (the agent has it), never on the turn's
 * end; the end of a turn, streamed output and the process exiting arrive as
 * `RuntimeEvent`s.
 */
import type { SessionFailureCode } from '../wire/index.js';

/**
 * Whether the session's agent can take a prompt now. `busy`: it runs and has
 * a turn, perhaps one whose prompt's caller gave up waiting for acceptance
 * (it may take it yet, until the host stops it after its grace); that turn's
 * end, or the agent's exit, says when it is free.
 */
export type Readiness = { ready: true } | { ready: false; reason: string; busy?: true };

/** How to start an agent: one command line, from configuration. */
export interface AgentProfile {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** Names of Clarion's own environment variables handed to the agent (API keys). */
  readonly passEnv?: readonly string[];
  /** The agent's working directory; the task's, else Clarion's, when absent. */
  readonly cwd?: string;
}

/** Why an agent failed, in words a person can act on (exit, stderr tail, ACP error). */
export interface AgentFailure {
  readonly code: SessionFailureCode;
  readonly message: string;
}

/** The failure a thrown start error carries, if it says one. */
export function agentFailureOf(error: unknown): AgentFailure | undefined {
  if (typeof error !== 'object' || error === null || !('failure' in error)) return undefined;
  const failure = (error as { failure?: AgentFailure }).failure;
  return failure && typeof failure.code === 'string' ? failure : undefined;
}

/**
 * Whether a prompt was refused because the host stopped the agent to end its
 * turn (`AgentHost.cancel`'s grace passed before the agent took the prompt):
 * no failure, and nothing of the agent is left to run the session's queue.
 */
export function stoppedToEndTurn(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    'stoppedToEndTurn' in error &&
    error.stoppedToEndTurn === true
  );
}

export interface SessionLaunch {
  readonly sessionId: string;
  readonly taskId: string;
  readonly profile: AgentProfile;
  /** Clarion's MCP endpoint for this session and its session-scoped bearer token. */
  readonly mcp: { readonly url: string; readonly token: string };
  /** The agent's own session ID from an earlier run, for `session/load`. */
  readonly agentSessionId?: string | undefined;
  readonly cwd: string;
}

export interface PromptRequest {
  sessionId: string;
  /** The turn this prompt starts; already written to the store. */
  turnId: string;
  text: string;
  /** Aborts the wait for acceptance (not the prompt, once sent). */
  signal: AbortSignal;
}

export type StopReason =
  'end_turn' | 'max_tokens' | 'max_turn_requests' | 'refusal' | 'cancelled' | 'failed';

export type RuntimeEvent =
  /** Streamed output, coalesced: one event per contiguous run of one kind in a turn. */
  | {
      type: 'agent_output';
      sessionId: string;
      turnId: string;
      kind: 'text' | 'thought' | 'tool_call' | 'plan';
      content: string;
      metadata: Record<string, unknown>;
    }
  | {
      type: 'turn_ended';
      sessionId: string;
      turnId: string;
      stopReason: StopReason;
      error?: string;
      /**
       * The turn failed because its agent's process exited while nobody
       * stopped it: what the agent waited on in it can no longer reach it.
       */
      agentExited?: true;
    }
  | {
      type: 'agent_session';
      sessionId: string;
      agentSessionId: string;
      /** The agent loaded the earlier conversation (`session/load`) rather than opening a new one. */
      loaded: boolean;
    }
  | {
      type: 'agent_exited';
      sessionId: string;
      code: number | null;
      signal: string | null;
      /** Why the session failed; null for a deliberate stop or an exit its start already reported. */
      failure: AgentFailure | null;
      /**
       * The host stopped the agent itself to end a turn that did not end (a
       * cancel's grace, or the grace after a prompt's caller gave up waiting
       * for its acceptance): no failure, and the session's queue goes on with
       * a new agent.
       */
      stoppedToEndTurn: boolean;
    };

export interface AgentRuntime {
  /**
   * Whether the session's agent can take a prompt right now. Answers from
   * memory without talking to the agent, so a refusal here is known to have
   * sent nothing.
   */
  readiness(sessionId: string): Readiness;
  /**
   * Makes the session able to take a prompt if it can be (for example by
   * starting its agent) and says whether it now is. Sends no prompt, so a
   * refusal here still means nothing reached the agent.
   */
  prepare(sessionId: string): Promise<Readiness>;
  /** Sends a prompt; resolves once the agent accepted it, not when the turn ends. */
  prompt(request: PromptRequest): Promise<void>;
}

/** A runtime that also starts, cancels and stops agent processes and reports what they do. */
export interface AgentHost extends AgentRuntime {
  start(launch: SessionLaunch): Promise<void>;
  /** Whether the session has a live agent process (busy or not). */
  isStarted(sessionId: string): boolean;
  /**
   * Asks the agent to stop its current turn (`session/cancel`); the turn still
   * ends by event, `cancelled` by stopping the agent if it ignores the cancel
   * past a grace. A turn whose prompt the agent has not taken by then ends by
   * its prompt's refusal instead (`stoppedToEndTurn`).
   */
  cancel(sessionId: string): Promise<void>;
  /** Ends the agent process group of a session, bounded; not a failure of the session. */
  stop(sessionId: string): Promise<void>;
  subscribe(listener: (event: RuntimeEvent) => void): () => void;
  /**
   * Stops every agent, those still starting too, and refuses every start
   * after it; for server shutdown. Once it resolves none of them runs.
   */
  close(): Promise<void>;
  /**
   * Kills every agent process group this host started that may still run
   * (SIGKILL to each group, synchronously, the groups of agents still
   * starting or already exited included) and refuses every start after it;
   * for a stop forced while a graceful one runs, after which the process
   * exits at once. Reports nothing: the turns it cuts are recovered by the
   * next start or a takeover. Says how many groups it signalled.
   */
  killAll(): number;
}

/**
 * Sessions of agents Clarion did not start (they came in over `/mcp` with a
 * user token). Nothing can be resumed there: a detached answer is recorded and
 * the agent collects it with `wait_for_answer`. The name is the wire's, so the
 * web app tells such a session by the same word.
 */
export { EXTERNAL_AGENT_PROFILE } from '../wire/index.js';
