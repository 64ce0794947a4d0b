/**
 * The session queue as people edit it. Every change runs under the session
 * lock the queue driver also takes, so an item is either started or removed,
 * never both.
 */
import type { Principal } from '../auth/principal.js';
import {
  canSeeSession,
  clearQueue,
  deleteQueued,
  listQueue,
  reorderQueue,
  updateQueuedContent,
  type QueuedMessage,
  type RepoContext,
} from '../store/index.js';
import type { TurnsDeps } from './context.js';

export type QueueResult<T> =
  { ok: true; value: T } | { ok: false; code: 'not_found' | 'invalid_request' };

async function underLock<T>(
  deps: TurnsDeps,
  principal: Principal,
  sessionId: string,
  work: (tx: RepoContext) => Promise<QueueResult<T>>,
): Promise<QueueResult<T>> {
  if (!(await canSeeSession(deps.store, principal, sessionId)))
    return { ok: false, code: 'not_found' };
  return deps.store.transaction(async (tx) => {
    await tx.dialect.lockSession(tx.db, sessionId);
    return work(tx);
  });
}

export function queueOf(deps: TurnsDeps, principal: Principal, sessionId: string) {
  return underLock(deps, principal, sessionId, async (tx) => ({
    ok: true,
    value: await listQueue(tx, sessionId),
  }));
}

export function editQueued(
  deps: TurnsDeps,
  principal: Principal,
  sessionId: string,
  id: string,
  content: string,
): Promise<QueueResult<QueuedMessage>> {
  return underLock(deps, principal, sessionId, async (tx) => {
    const item = await updateQueuedContent(tx, sessionId, id, content);
    return item ? { ok: true, value: item } : { ok: false, code: 'not_found' };
  });
}

export function reorderQueued(
  deps: TurnsDeps,
  principal: Principal,
  sessionId: string,
  ids: readonly string[],
): Promise<QueueResult<QueuedMessage[]>> {
  return underLock(deps, principal, sessionId, async (tx) =>
    (await reorderQueue(tx, sessionId, ids))
      ? { ok: true, value: await listQueue(tx, sessionId) }
      : { ok: false, code: 'invalid_request' },
  );
}

export function removeQueued(
  deps: TurnsDeps,
  principal: Principal,
  sessionId: string,
  id: string,
): Promise<QueueResult<QueuedMessage>> {
  return underLock(deps, principal, sessionId, async (tx) => {
    const item = await deleteQueued(tx, sessionId, id);
    return item ? { ok: true, value: item } : { ok: false, code: 'not_found' };
  });
}

export function clearQueued(
  deps: TurnsDeps,
  principal: Principal,
  sessionId: string,
): Promise<QueueResult<QueuedMessage[]>> {
  return underLock(deps, principal, sessionId, async (tx) => ({
    ok: true,
    value: await clearQueue(tx, sessionId),
  }));
}
