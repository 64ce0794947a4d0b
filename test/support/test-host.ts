/**
 * An `AgentHost` whose agents the test plays by hand: it records starts and
 * prompts, and the test ends turns or kills agents when it wants to. The ACP
 * host with the real demo agent has its own suites; this one makes races in
 * admission and the queue reproducible.
 */
import type {
  AgentHost,
  PromptRequest,
  Readiness,
  RuntimeEvent,
  SessionLaunch,
  StopReason,
} from '../../src/agents/runtime.js';

export class TestHost implements AgentHost {
  readonly launches: SessionLaunch[] = [];
  readonly prompts: PromptRequest[] = [];
  private readonly running = new Map<string, string | undefined>();
  /** Starts under way, held until `holdStarts`' release: each session's gate. */
  private readonly starting = new Map<string, Promise<void>>();
  private startGate: Promise<void> | undefined;
  private readonly listeners = new Set<(event: RuntimeEvent) => void>();

  /**
   * Starts from now on take until the returned function is called (a slow
   * agent start); started meanwhile, as the ACP host's are, not yet ready.
   */
  holdStarts(): () => void {
    let release: () => void = () => undefined;
    this.startGate = new Promise<void>((resolve) => {
      release = resolve;
    });
    return () => {
      this.startGate = undefined;
      release();
    };
  }

  readiness(sessionId: string): Readiness {
    if (this.starting.has(sessionId)) return { ready: false, reason: 'starting' };
    if (!this.running.has(sessionId)) return { ready: false, reason: 'not started' };
    return this.running.get(sessionId) === undefined
      ? { ready: true }
      : { ready: false, reason: 'busy' };
  }

  async prepare(sessionId: string): Promise<Readiness> {
    await this.starting.get(sessionId);
    return this.readiness(sessionId);
  }

  isStarted(sessionId: string): boolean {
    return this.running.has(sessionId) || this.starting.has(sessionId);
  }

  async start(launch: SessionLaunch): Promise<void> {
    this.launches.push(launch);
    const gate = this.startGate;
    if (gate) {
      this.starting.set(launch.sessionId, gate);
      await gate;
      this.starting.delete(launch.sessionId);
    }
    this.running.set(launch.sessionId, undefined);
  }

  prompt(request: PromptRequest): Promise<void> {
    const readiness = this.readiness(request.sessionId);
    if (!readiness.ready) return Promise.reject(new Error(readiness.reason));
    this.prompts.push(request);
    this.running.set(request.sessionId, request.turnId);
    return Promise.resolve();
  }

  cancel(sessionId: string): Promise<void> {
    const turnId = this.running.get(sessionId);
    if (turnId !== undefined) this.endTurn(sessionId, 'cancelled');
    return Promise.resolve();
  }

  stop(sessionId: string): Promise<void> {
    this.exit(sessionId, { deliberate: true });
    return Promise.resolve();
  }

  subscribe(listener: (event: RuntimeEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): Promise<void> {
    for (const sessionId of [...this.running.keys()]) this.exit(sessionId, { deliberate: true });
    return Promise.resolve();
  }

  /** The agent says something in its running turn. */
  say(sessionId: string, content: string): void {
    const turnId = this.running.get(sessionId);
    if (turnId === undefined) throw new Error('no running turn');
    this.emit({ type: 'agent_output', sessionId, turnId, kind: 'text', content, metadata: {} });
  }

  /** The agent reports a tool call of its running turn: announced, or a later status. */
  reportToolCall(sessionId: string, toolCallId: string, title: string, status?: string): void {
    const turnId = this.running.get(sessionId);
    if (turnId === undefined) throw new Error('no running turn');
    this.emit({
      type: 'agent_output',
      sessionId,
      turnId,
      kind: 'tool_call',
      content: title,
      metadata: { toolCallId, status, kind: undefined },
    });
  }

  /** The agent's running turn ends. */
  endTurn(sessionId: string, stopReason: StopReason = 'end_turn'): void {
    const turnId = this.running.get(sessionId);
    if (turnId === undefined) throw new Error('no running turn');
    this.running.set(sessionId, undefined);
    this.emit({ type: 'turn_ended', sessionId, turnId, stopReason });
  }

  /** The agent process dies, mid-turn or not; a deliberate stop is no failure. */
  exit(sessionId: string, options: { deliberate?: boolean } = {}): void {
    const turnId = this.running.get(sessionId);
    if (!this.running.has(sessionId)) return;
    this.running.delete(sessionId);
    if (turnId !== undefined) {
      this.emit({
        type: 'turn_ended',
        sessionId,
        turnId,
        stopReason: 'failed',
        error: 'agent exited',
      });
    }
    const signal = options.deliberate ? 'SIGTERM' : 'SIGKILL';
    this.emit({
      type: 'agent_exited',
      sessionId,
      code: null,
      signal,
      failure: options.deliberate
        ? null
        : { code: 'exited', message: `the agent exited (signal ${signal})` },
    });
  }

  private emit(event: RuntimeEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}
