/**
 * The seam between Clarion and agent processes (DESIGN §6). The clarification
 * resolver only needs to know whether a session's agent can take a prompt now
 * and to send one; the ACP host implements this for real agents.
 */

export type Readiness = { ready: true } | { ready: false; reason: string };

export interface PromptRequest {
  sessionId: string;
  /** The turn this prompt starts; already reserved in the store. */
  turnId: string;
  text: string;
  /** Aborts the wait for acceptance (not the prompt, once sent). */
  signal: AbortSignal;
}

export interface AgentRuntime {
  /**
   * Whether the session's agent can take a prompt right now. Answers from
   * memory without talking to the agent, so a refusal here is known to have
   * sent nothing.
   */
  readiness(sessionId: string): Readiness;
  /** Sends a prompt; resolves once the agent accepted it, not when the turn ends. */
  prompt(request: PromptRequest): Promise<void>;
}
