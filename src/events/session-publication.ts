/**
 * Turning a session's committed changes (transcript rows, state) into events,
 * for every service that changes a session. The revision is taken inside the
 * same transaction as the change, so event order and row state agree; the
 * events are handed out only after the commit.
 */
import {
  activeClarificationRows,
  bumpSessionRevision,
  type MessageRecord,
  type RepoContext,
  type SessionState,
} from '../store/index.js';
import { toMessageView } from './message-view.js';
import type { ClarionEvent, EventPublisher, PendingAction } from './types.js';

export interface SessionChanges {
  added?: readonly MessageRecord[];
  updated?: readonly MessageRecord[];
  /** Set when the session's state moved; the revision was bumped by that move. */
  state?: SessionState;
}

/** What the session waits on a person for, as far as clarifications tell. */
export async function clarificationPendingAction(
  ctx: RepoContext,
  sessionId: string,
): Promise<PendingAction> {
  const rows = await activeClarificationRows(ctx, sessionId);
  return rows.length > 0 ? 'clarification' : null;
}

/** Inside the transaction: takes a revision and returns the events to publish after commit. */
export async function stageEvents(
  tx: RepoContext,
  sessionId: string,
  changes: SessionChanges,
): Promise<ClarionEvent[]> {
  const added = changes.added ?? [];
  const updated = changes.updated ?? [];
  if (added.length === 0 && updated.length === 0 && changes.state === undefined) return [];
  const session = await bumpSessionRevision(tx, sessionId);
  if (!session) return [];
  const scope = {
    session_id: session.id,
    task_id: session.task_id,
    revision: session.revision,
    pending_action: await clarificationPendingAction(tx, sessionId),
  };
  return [
    ...added.map((message): ClarionEvent => ({
      ...scope,
      type: 'message.added',
      message: toMessageView(message),
    })),
    ...updated.map((message): ClarionEvent => ({
      ...scope,
      type: 'message.updated',
      message: toMessageView(message),
    })),
    ...(changes.state === undefined
      ? []
      : [{ ...scope, type: 'session.state_changed' as const, state: changes.state }]),
  ];
}

export function publishAll(publisher: EventPublisher, events: readonly ClarionEvent[]): void {
  for (const event of events) publisher.publish(event);
}
