/**
 * The session queue as people edit it. Every change runs under the session
 * lock the queue driver also takes, so an item is either started or removed,
 * never both; one that changed the queue reports it in that write, so
 * `queue.changed` goes out at the session's revision to everyone watching.
 * A follow-up's removal is the registry's and final: when that write rolls
 * back, a write of its own tells the change.
 */
import type { Principal, UserPrincipal } from '../auth/index.js';
import {
  canSeeSession,
  clearQueue,
  deleteQueued,
  listQueue,
  reorderQueue,
  updateQueuedContent,
  type QueuedMessage,
} from '../store/index.js';
import type { SessionWrite } from '../events/index.js';
import type { MachineQueueItem } from '../user-input/index.js';
import type { TurnsDeps } from './context.js';
import { failure, type Failure, type QueueItemChangedDetails } from '../wire/index.js';

export type QueueResult<T> =
  | { ok: true; value: T }
  | Failure<
      'not_found' | 'invalid_request' | 'conflict' | 'queue_item_changed' | 'person_required'
    >;

const NOT_FOUND = failure('not_found', 'queued message not found');
const SESSION_NOT_FOUND = failure('not_found', 'session not found');
const NOT_REMOVED = failure('conflict', 'the queued follow-up could not be removed');
const PERSON_REQUIRED = failure('person_required', 'only a person changes a session’s queue');

/** A session's queue: people's messages (persisted) and due follow-ups (memory, machine-owned). */
export interface SessionQueue {
  user: QueuedMessage[];
  machine: MachineQueueItem[];
}

async function underLock<T>(
  deps: TurnsDeps,
  principal: Principal,
  sessionId: string,
  work: (write: SessionWrite) => Promise<QueueResult<T>>,
): Promise<QueueResult<T>> {
  if (!(await canSeeSession(deps.store, principal, sessionId))) return SESSION_NOT_FOUND;
  return deps.sessions.write(sessionId, work);
}

/**
 * `underLock` for a change, handing `work` the person making it: what a
 * queue sends is a person's message, so an agent (which may read its own
 * session's queue) is refused before any read, whatever reaches this, as by
 * the deciding services.
 */
function changingUnderLock<T>(
  deps: TurnsDeps,
  principal: Principal,
  sessionId: string,
  work: (write: SessionWrite, person: UserPrincipal) => Promise<QueueResult<T>>,
): Promise<QueueResult<T>> {
  if (principal.kind !== 'user') return Promise.resolve(PERSON_REQUIRED);
  return underLock(deps, principal, sessionId, (write) => work(write, principal));
}

/** `result`, reported as a queue change when it succeeded. */
function changed<T>(write: SessionWrite, result: QueueResult<T>): QueueResult<T> {
  if (result.ok) write.queueChanged();
  return result;
}

export function queueOf(
  deps: TurnsDeps,
  principal: Principal,
  sessionId: string,
): Promise<QueueResult<SessionQueue>> {
  // A read: it reports nothing, so it takes no revision and publishes nothing.
  return underLock(deps, principal, sessionId, async ({ tx }) => ({
    ok: true,
    value: {
      user: await listQueue(tx, sessionId),
      machine: deps.userInputs.queuedFollowUps(sessionId),
    },
  }));
}

/**
 * Removes a machine-owned follow-up: claimed under the queue lock so the
 * driver cannot start it, then its owner is rejected; if that fails the item
 * is put back and the error returned.
 */
function removeMachineItem(deps: TurnsDeps, sessionId: string, id: string): QueueResult<string> {
  const claimed = deps.userInputs.claimQueued(sessionId, id);
  if (!claimed.ok) {
    return claimed.code === 'not_found' || claimed.code === 'not_queued' ? NOT_FOUND : NOT_REMOVED;
  }
  const rejected = deps.userInputs.reject(id);
  if (!rejected.ok) {
    deps.userInputs.restoreQueued(id);
    return NOT_REMOVED;
  }
  return { ok: true, value: id };
}

/**
 * Saves an edit made from `baseContent`, as the editor's message: it is sent
 * in the name of whoever wrote its text. One made from a text the message no
 * longer has (another tab saved first) is refused and changes nothing: its
 * failure carries the current text, for the editor to show beside the one
 * typed.
 */
export function editQueued(
  deps: TurnsDeps,
  principal: Principal,
  sessionId: string,
  id: string,
  edit: { content: string; baseContent: string },
): Promise<QueueResult<QueuedMessage>> {
  return changingUnderLock(deps, principal, sessionId, async (write, person) => {
    // A person's edit makes the message theirs.
    const found = await updateQueuedContent(write.tx, sessionId, id, {
      ...edit,
      editedBy: person.userId,
    });
    switch (found.kind) {
      case 'saved':
        return changed(write, { ok: true, value: found.item });
      case 'changed': {
        const details: QueueItemChangedDetails = { current_text: found.item.content };
        return failure('queue_item_changed', undefined, details);
      }
      case 'missing':
        return NOT_FOUND;
    }
  });
}

export function reorderQueued(
  deps: TurnsDeps,
  principal: Principal,
  sessionId: string,
  ids: readonly string[],
): Promise<QueueResult<QueuedMessage[]>> {
  return changingUnderLock(deps, principal, sessionId, async (write) =>
    changed(
      write,
      (await reorderQueue(write.tx, sessionId, ids))
        ? { ok: true, value: await listQueue(write.tx, sessionId) }
        : failure('invalid_request', 'ids must list every queued message exactly once'),
    ),
  );
}

export function removeQueued(
  deps: TurnsDeps,
  principal: Principal,
  sessionId: string,
  id: string,
): Promise<QueueResult<QueuedMessage | string>> {
  let removedMachine = false;
  return changingUnderLock<QueuedMessage | string>(deps, principal, sessionId, async (write) => {
    const item = await deleteQueued(write.tx, sessionId, id);
    if (item) return changed(write, { ok: true, value: item });
    const removed = removeMachineItem(deps, sessionId, id);
    removedMachine = removed.ok;
    return changed(write, removed);
  }).catch(async (error: unknown) => {
    if (!removedMachine || !(await toldRemoved(deps, sessionId))) throw error;
    return { ok: true, value: id };
  });
}

export function clearQueued(
  deps: TurnsDeps,
  principal: Principal,
  sessionId: string,
): Promise<QueueResult<SessionQueue>> {
  let removedMachine = false;
  return changingUnderLock(deps, principal, sessionId, async (write) => {
    const machine = deps.userInputs.queuedFollowUps(sessionId);
    const removed = machine.filter((item) => removeMachineItem(deps, sessionId, item.id).ok);
    removedMachine = removed.length > 0;
    const user = await clearQueue(write.tx, sessionId);
    if (user.length > 0 || removed.length > 0) write.queueChanged();
    return { ok: true, value: { user, machine: removed } };
  }).catch(async (error: unknown) => {
    // People's messages stay queued (their delete rolled back); the follow-ups are gone.
    if (removedMachine) await toldRemoved(deps, sessionId);
    throw error;
  });
}

/**
 * A follow-up's removal is the registry's and final (its owner settled), so it
 * stands when the write that was to report it rolls back: the queue change is
 * then told by a write of its own, or a watcher keeps listing what is gone.
 * False when that write fails too.
 */
async function toldRemoved(deps: TurnsDeps, sessionId: string): Promise<boolean> {
  try {
    await deps.sessions.write(sessionId, (write) => {
      write.queueChanged();
      return Promise.resolve();
    });
    return true;
  } catch (error) {
    deps.logger.warn(
      { err: error, session_id: sessionId },
      'a removed follow-up could not be told: the queue write failed again',
    );
    return false;
  }
}
