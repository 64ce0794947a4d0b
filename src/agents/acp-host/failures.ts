/**
 * The words of an agent's failure: what happened, then the last lines of its
 * stderr, which is where agents say why (a missing key, a bad flag).
 */
import { RequestError } from '@agentclientprotocol/sdk';
import type { AgentFailure } from '../runtime.js';
import type { AgentExit } from './agent-process.js';
import { errorText } from './errors.js';

export function exitText(exit: AgentExit): string {
  return exit.signal === null ? `code ${exit.code ?? 'unknown'}` : `signal ${exit.signal}`;
}

export function agentFailure(
  code: AgentFailure['code'],
  reason: string,
  stderrTail: readonly string[],
): AgentFailure {
  const stderr = stderrTail.length === 0 ? '' : `\nstderr:\n${stderrTail.join('\n')}`;
  return { code, message: `${reason}${stderr}` };
}

/** An ACP error response in its own words (its `data` often names the cause). */
export function acpErrorText(step: string, error: unknown): string {
  if (!(error instanceof RequestError)) return `${step} failed: ${errorText(error)}`;
  const data = error.data === undefined ? '' : ` (${errorText(error.data)})`;
  return `${step} failed: ${error.message}${data}`;
}
