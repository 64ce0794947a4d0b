/**
 * An agent's tool call row (`type: 'tool_call'`): `metadata.status` is ACP's
 * status as the agent last reported it. A call the agent never reported
 * ended is closed with its turn (the agent exited, was stopped, or the server
 * or its replica went): it keeps ACP's `failed`, so every reader knows it no
 * longer runs, and `interrupted: true` says nobody reported it failed; it was
 * cut off. Every such row ever written carries the mark. Zod-free, so the web
 * app reads a row as the server writes it.
 */

/** ACP's statuses of a tool call. */
export const TOOL_CALL_STATUSES = ['pending', 'in_progress', 'completed', 'failed'] as const;
export type ToolCallStatus = (typeof TOOL_CALL_STATUSES)[number];
/** The statuses of a call that no longer runs; any other one is open. */
export const ENDED_TOOL_CALL_STATUSES: readonly ToolCallStatus[] = ['completed', 'failed'];

/** How a person reads a tool call: ACP's status, or `stopped` when its turn's end cut it off. */
export type ToolCallState = ToolCallStatus | 'stopped';

/** The metadata of a call its turn's end cut off, from what the agent last reported. */
export function cutOffToolCallMetadata(
  metadata: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  return { ...metadata, status: 'failed', interrupted: true };
}

/** A tool call row's state; null when its status is none of ACP's (nothing to show). */
export function toolCallStateOf(metadata: Readonly<Record<string, unknown>>): ToolCallState | null {
  const status = TOOL_CALL_STATUSES.find((known) => known === metadata.status);
  if (status === undefined) return null;
  return status === 'failed' && metadata.interrupted === true ? 'stopped' : status;
}
