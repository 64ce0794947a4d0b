/**
 * A queued message is sent for the person who queued it, once the turn
 * before it ends; by then they may no longer belong to the session's
 * workspace (an admin removed or deleted them). Only someone with standing
 * acts there, so the queue driver drops such messages instead: each leaves a
 * line in the transcript saying so, and the write reports the queue change.
 * Messages already sent stay as they are. A follow-up (an action's Done,
 * due once the turn ends) is the same: it is refused, which settles its
 * request, and the transcript says so too.
 */
import type { SessionWrite } from '../events/index.js';
import {
  appendMessage,
  canSeeSession,
  currentTurn,
  getSession,
  takeQueuedOfLeftAuthors,
} from '../store/index.js';
import { failure, QUEUED_AUTHOR_LEFT_NOTE, type Failure } from '../wire/index.js';

/** Inside the driver's session write, before it picks what to start. */
export async function dropQueuedOfLeftAuthors(write: SessionWrite): Promise<void> {
  const { tx, sessionId } = write;
  const dropped = await takeQueuedOfLeftAuthors(tx, sessionId);
  if (dropped.length === 0) return;
  write.queueChanged();
  for (const item of dropped) await sayNotSent(write, item.task_id);
}

/**
 * Inside a follow-up's admission write: its refusal when `userId`, whose
 * answer it carries, no longer belongs to the session's workspace.
 */
export async function refusedForLeftAuthor(
  write: SessionWrite,
  userId: string,
): Promise<Failure<'not_found'> | undefined> {
  const { tx, sessionId } = write;
  // A session that is gone is the admission's to refuse, as such.
  const session = await getSession(tx, sessionId);
  if (!session) return undefined;
  // Only the person's membership is read.
  const author = { kind: 'user', userId, name: '', isAdmin: false } as const;
  if (await canSeeSession(tx, author, sessionId)) return undefined;
  await sayNotSent(write, session.task_id);
  return failure('not_found', 'the person this message is from no longer belongs here');
}

async function sayNotSent(write: SessionWrite, taskId: string): Promise<void> {
  const { tx, sessionId } = write;
  // A line needs a turn; a session with none yet has no transcript to say it in.
  const turn = await currentTurn(tx, sessionId);
  if (!turn) return;
  write.added(
    await appendMessage(tx, {
      sessionId,
      taskId,
      turnId: turn.id,
      authorType: 'system',
      type: 'status',
      content: QUEUED_AUTHOR_LEFT_NOTE.content,
      metadata: { ...QUEUED_AUTHOR_LEFT_NOTE.metadata },
    }),
  );
}
