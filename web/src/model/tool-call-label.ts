/**
 * What a tool call's chip says, told from what the transcript knows rather
 * than the agent's bare status: an agent that stopped waiting on a question
 * reports its ask as failed, yet the question still waits and its answer
 * will resume the agent; an action the person skipped completes the call,
 * yet nothing was done; an ask whose question was cancelled is cancelled, not
 * failed; a call its turn's end cut off is stopped, not failed
 * (`toolCallStateOf`). A tool call is tied to the question or decision row
 * that follows it in the same turn, before the turn's next tool call, or to
 * a skipped action request made after it and before the session's next tool
 * call (the request views the page holds; an action leaves no transcript row
 * of its own). A question's status is the page's bundle's, as the question's
 * own transcript line reads it. Pure.
 */
import { questionOfRow, type BundleState } from './read-model.js';
import {
  toolCallStateOf,
  USER_INPUT_DECISION_TYPE,
  type MessageView,
  type ToolCallState,
} from './types.js';

/** The labels the transcript knows beyond the agent's own state (`decide.toolStatus`). */
const TRANSCRIPT_LABELS = ['waiting_detached', 'answered_later', 'skipped', 'cancelled'] as const;
export type TranscriptLabel = (typeof TRANSCRIPT_LABELS)[number];
export type ToolCallLabel = ToolCallState | TranscriptLabel;

export function isTranscriptLabel(label: ToolCallLabel): label is TranscriptLabel {
  return (TRANSCRIPT_LABELS as readonly string[]).includes(label);
}

/** The row the tool call at `index` of `transcript` (in order) asked for, if any. */
function askedRow(transcript: readonly MessageView[], index: number): MessageView | undefined {
  const call = transcript[index];
  if (!call) return undefined;
  for (const row of transcript.slice(index + 1)) {
    if (row.turn_id !== call.turn_id) continue;
    if (row.type === 'tool_call') return undefined;
    if (row.type === USER_INPUT_DECISION_TYPE || questionOfRow(row)) return row;
  }
  return undefined;
}

/** Whether an action request made at one of `times` (RFC 3339) followed the call at `index`. */
function skippedActionFollows(
  transcript: readonly MessageView[],
  index: number,
  times: readonly string[],
): boolean {
  const call = transcript[index];
  if (!call) return false;
  const from = Date.parse(call.created_at);
  const next = transcript.slice(index + 1).find((row) => row.type === 'tool_call');
  const until = next ? Date.parse(next.created_at) : Infinity;
  return times.some((at) => {
    const ms = Date.parse(at);
    return ms >= from && ms < until;
  });
}

export function toolCallLabel(
  transcript: readonly MessageView[],
  index: number,
  bundles: Readonly<Record<string, BundleState>>,
  /** When this session's skipped action requests were made. */
  skippedActionTimes: readonly string[] = [],
): ToolCallLabel | null {
  const call = transcript[index];
  const status = call ? toolCallStateOf(call.metadata) : null;
  if (!status) return null;
  if (status === 'completed' && skippedActionFollows(transcript, index, skippedActionTimes)) {
    return 'skipped';
  }
  const asked = askedRow(transcript, index);
  if (!asked) return status;
  if (asked.type === USER_INPUT_DECISION_TYPE) {
    return asked.metadata.kind === 'action' && asked.metadata.decision === 'skip'
      ? 'skipped'
      : status;
  }
  const row = questionOfRow(asked);
  // Its agent stopped waiting (it said failed) or was cut off: the question may wait on.
  if (!row || (status !== 'failed' && status !== 'stopped')) return status;
  const bundle = bundles[row.pendingId];
  // The bundle knows what the row may not: an expiry the server derives without
  // rewriting the row. The question's own line reads it too, so both agree.
  const question = bundle?.questions.get(row.question.question_id) ?? row.question;
  // The agent reads a cancelled question as a refused ask; nothing failed.
  if (status === 'failed' && question.status === 'cancelled') return 'cancelled';
  const detached = row.detached || bundle?.detached === true;
  if (!detached) return status;
  switch (question.status) {
    case 'pending':
      return 'waiting_detached';
    case 'answered':
      return 'answered_later';
    case 'rejected':
      return 'skipped';
    case 'expired':
    case 'cancelled':
      return status;
  }
}
