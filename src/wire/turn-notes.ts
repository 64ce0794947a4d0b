/**
 * The server's own transcript lines about how a turn went (author `system`):
 * the agent started again in a new conversation, the turn was cancelled, the
 * agent's turn failed, or the agent did not take the message. Zod-free, so
 * the web app reads the same metadata and words each line in the reader's
 * language; `content` stays the server's English for every other reader
 * (the API, notifications, logs) and for a row written before the metadata
 * said enough (its key absent), which the web app shows as written.
 */
// Types only: this module stays zod-free at run time.
import type { Responder } from './common.js';
import { storableText } from './text.js';

/** The note that a stopped agent could not load its conversation. */
export const FRESH_START_TEXT =
  'The agent started again in a new conversation: it cannot load the earlier one, so it does not remember what was said before.';

export const FRESH_START_METADATA: Readonly<Record<string, string>> = { agent_session: 'fresh' };

/**
 * A cancelled turn's line; `by` the person who cancelled it and where, when
 * known, as every decision records it (a name alone may be two people's).
 */
export function turnCancelledNote(by: Responder | undefined): {
  content: string;
  metadata: Record<string, string | null | Responder>;
} {
  return {
    content: by === undefined ? 'Cancelled' : `Cancelled by ${by.name}`,
    // Always present (null when unknown): an older row without them keeps its own words.
    metadata: {
      turn_outcome: 'cancelled',
      cancelled_by_name: by?.name ?? null,
      cancelled_by: by === undefined ? null : { ...by },
    },
  };
}

/** Why a turn ended in an error the person should see: the agent's own, or its refusal. */
export const TURN_FAILURES = ['agent_error', 'not_taken'] as const;
export type TurnFailure = (typeof TURN_FAILURES)[number];

const FAILURE_LEADS: Readonly<Record<TurnFailure, string>> = {
  agent_error: "The agent's turn failed: ",
  not_taken: 'The agent did not take this message: ',
};

/** A failed turn's line; `reason` is the agent's or the host's words, quoted as given. */
export function turnFailureNote(
  failure: TurnFailure,
  reason: string,
): { content: string; metadata: Record<string, string> } {
  const quoted = storableText(reason);
  return {
    content: `${FAILURE_LEADS[failure]}${quoted}`,
    metadata: { turn_failure: failure, reason: quoted },
  };
}

/**
 * The line for a queued message not sent because the person who queued it no
 * longer belongs to the session's workspace (removed from it, or deleted):
 * only someone with standing acts there, so it is not sent for them.
 */
export const QUEUED_AUTHOR_LEFT_NOTE: {
  readonly content: string;
  readonly metadata: Readonly<Record<string, string>>;
} = {
  content:
    'A queued message was not sent: the person who queued it no longer belongs to this workspace.',
  metadata: { queue_outcome: 'author_left' },
};

export type TurnNote =
  | { kind: 'fresh_start' }
  | { kind: 'queued_author_left' }
  | { kind: 'cancelled'; byName: string | null }
  | { kind: TurnFailure; reason: string };

/** What the line says, when `metadata` is such a line's and this build can word it. */
export function turnNoteOf(metadata: Readonly<Record<string, unknown>>): TurnNote | undefined {
  if (metadata.agent_session === 'fresh') return { kind: 'fresh_start' };
  if (metadata.queue_outcome === 'author_left') return { kind: 'queued_author_left' };
  if (metadata.turn_outcome === 'cancelled' && 'cancelled_by_name' in metadata) {
    const by = metadata.cancelled_by_name;
    if (by === null) return { kind: 'cancelled', byName: null };
    return typeof by === 'string' ? { kind: 'cancelled', byName: by } : undefined;
  }
  const { turn_failure: failure, reason } = metadata;
  if (typeof reason !== 'string') return undefined;
  return failure === 'agent_error' || failure === 'not_taken'
    ? { kind: failure, reason }
    : undefined;
}
