/**
 * An `AgentRuntime` written for clarification tests (the ACP host is tested
 * on its own): it records every prompt and can be told to be unavailable, to
 * refuse after sending, or never to confirm, or to start slowly.
 */
import type { AgentRuntime, PromptRequest, Readiness } from '../../src/agents/runtime.js';

export type PromptBehaviour = 'accept' | 'fail' | 'hang' | 'gated';

export class TestRuntime implements AgentRuntime {
  readonly prompts: PromptRequest[] = [];
  unavailable: string | undefined;
  behaviour: PromptBehaviour = 'accept';
  private openGate: () => void = () => {};
  private readonly gate = new Promise<void>((resolve) => {
    this.openGate = resolve;
  });

  private starting: Promise<void> | undefined;
  private started: () => void = () => {};

  /** From now on `prepare` waits (an agent starting, a long `session/load`) until `finishStart`. */
  startSlowly(): void {
    this.starting = new Promise<void>((resolve) => {
      this.started = resolve;
    });
  }

  finishStart(): void {
    this.started();
    this.starting = undefined;
  }

  /** Lets every 'gated' prompt be accepted. */
  accept(): void {
    this.openGate();
  }

  readiness(): Readiness {
    return this.unavailable === undefined
      ? { ready: true }
      : { ready: false, reason: this.unavailable };
  }

  async prepare(): Promise<Readiness> {
    await this.starting;
    return this.readiness();
  }

  prompt(request: PromptRequest): Promise<void> {
    this.prompts.push(request);
    switch (this.behaviour) {
      case 'accept':
        return Promise.resolve();
      case 'fail':
        return Promise.reject(new Error('agent refused the prompt'));
      case 'gated':
        return this.gate;
      case 'hang':
        return new Promise<void>((_, reject) => {
          request.signal.addEventListener('abort', () => {
            reject(new Error('gave up waiting'));
          });
        });
    }
  }
}
