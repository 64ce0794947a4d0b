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

/** A stop `holdStop` holds: waiting once `reached`, until released or refused. */
export interface HeldStop {
  reached: Promise<void>;
  release(): void;
  refuse(error: Error): void;
}

export class TestHost implements AgentHost {
  readonly launches: SessionLaunch[] = [];
  readonly prompts: PromptRequest[] = [];
  private readonly running = new Map<string, string | undefined>();
  /** Starts under way, held until `holdStarts`' release: each session's gate. */
  private readonly starting = new Map<string, Promise<void>>();
  private startGate: Promise<void> | undefined;
  private readonly listeners = new Set<(event: RuntimeEvent) => void>();
  /** Set by `holdPrompts`: prompts are sent to an agent that does not take them. */
  private holding = false;
  /** Per session, its next stop held by `holdStop`: told when reached, going on with `gate`. */
  private readonly heldStops = new Map<string, { reach: () => void; gate: Promise<void> }>();
  /** Per session, a turn whose prompt the agent has not taken: its refusal, while its caller waits. */
  private readonly untaken = new Map<string, ((error: Error) => void) | undefined>();

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
      : { ready: false, reason: 'busy', busy: true };
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

  /**
   * From now on prompts are sent but not taken (an agent that stopped reading
   * its stdin): the turn is the agent's busy one, a cancel is not heard, and
   * the caller waits until it gives up or `stopToEndTurn`.
   */
  holdPrompts(): void {
    this.holding = true;
  }

  /** Prompts sent from now on are taken at once again. */
  takePrompts(): void {
    this.holding = false;
  }

  prompt(request: PromptRequest): Promise<void> {
    const readiness = this.readiness(request.sessionId);
    if (!readiness.ready) return Promise.reject(new Error(readiness.reason));
    this.prompts.push(request);
    this.running.set(request.sessionId, request.turnId);
    if (!this.holding) return Promise.resolve();
    return new Promise<void>((_, reject) => {
      this.untaken.set(request.sessionId, reject);
      // As the ACP host: giving up the wait leaves the turn the agent's, until it is stopped.
      request.signal.addEventListener('abort', () => {
        this.untaken.set(request.sessionId, undefined);
        reject(new Error('gave up waiting for the agent to accept the prompt'));
      });
    });
  }

  cancel(sessionId: string): Promise<void> {
    const turnId = this.running.get(sessionId);
    if (turnId !== undefined && !this.untaken.has(sessionId)) this.endTurn(sessionId, 'cancelled');
    return Promise.resolve();
  }

  /**
   * The ACP host's bound on a turn that did not end (a cancel's grace, or the
   * grace after its caller gave up): it stops the agent; a prompt still
   * waiting is refused saying so, and so does the exit.
   */
  stopToEndTurn(sessionId: string): void {
    if (!this.running.has(sessionId)) throw new Error('no agent running');
    const refuse = this.untaken.get(sessionId);
    this.untaken.delete(sessionId);
    this.running.delete(sessionId);
    refuse?.(
      Object.assign(new Error('the agent did not receive the prompt: cancelled'), {
        stoppedToEndTurn: true,
      }),
    );
    this.emit({
      type: 'agent_exited',
      sessionId,
      code: null,
      signal: 'SIGTERM',
      failure: null,
      stoppedToEndTurn: true,
    });
  }

  /**
   * The session's next stop waits, its agent still running, until the test
   * lets it go on or refuses it (a stop that fails): `reached` resolves once
   * a stop waits.
   */
  holdStop(sessionId: string): HeldStop {
    let reach: () => void = () => undefined;
    let release: () => void = () => undefined;
    let refuse: (error: Error) => void = () => undefined;
    const reached = new Promise<void>((resolve) => {
      reach = resolve;
    });
    const gate = new Promise<void>((resolve, reject) => {
      release = resolve;
      refuse = reject;
    });
    this.heldStops.set(sessionId, { reach, gate });
    return { reached, release, refuse };
  }

  stop(sessionId: string): Promise<void> {
    const held = this.heldStops.get(sessionId);
    if (held) {
      this.heldStops.delete(sessionId);
      held.reach();
      return held.gate.then(() => {
        this.exit(sessionId, { deliberate: true });
      });
    }
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

  /** Its agents are no processes: nothing to kill, and nothing is reported. */
  killAll(): number {
    return 0;
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
    // A turn that ends was the agent's, even one whose caller gave up waiting for it.
    this.untaken.delete(sessionId);
    this.emit({ type: 'turn_ended', sessionId, turnId, stopReason });
  }

  /** The agent process dies, mid-turn or not; a deliberate stop is no failure. */
  exit(sessionId: string, options: { deliberate?: boolean } = {}): void {
    const turnId = this.running.get(sessionId);
    if (!this.running.has(sessionId)) return;
    this.running.delete(sessionId);
    const untaken = this.untaken.has(sessionId);
    // A turn the agent never took is not its to end: its prompt is refused instead.
    this.untaken.get(sessionId)?.(new Error('the agent did not receive the prompt: it exited'));
    this.untaken.delete(sessionId);
    if (turnId !== undefined && !untaken) {
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
      stoppedToEndTurn: false,
    });
  }

  private emit(event: RuntimeEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}
