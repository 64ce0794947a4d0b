/**
 * Moving a person's queued message one place up or down: the whole new
 * order goes to the server, then the list is fetched again. One move at a
 * time. A move that lost a race (the order no longer names exactly what is
 * queued: a message was sent, added or removed meanwhile) changed nothing on
 * the server; the refetched list shows what is, and the person is told.
 *
 * Focus stays on the moved message: on the button pressed, or on its other
 * move button once the message reached an end and the pressed one is
 * disabled. React may move the row's element to reorder it, which drops
 * focus, so it is put back once the list shows the new order.
 */
import { useCallback, useLayoutEffect, useRef, useState, type RefObject } from 'react';
import { useServices } from '../app/services.js';
import {
  moveFailureOf,
  movedOrder,
  type MoveDirection,
  type MoveFailure,
} from '../model/queue-controls.js';
import type { QueueItemView } from '../model/types.js';

export interface QueueMove {
  move: (itemId: string, direction: MoveDirection) => Promise<void>;
  /** Why the last move did not happen; cleared by the next one. */
  failure: MoveFailure | undefined;
}

export function useQueueMove(
  sessionId: string,
  items: readonly QueueItemView[],
  reload: () => Promise<unknown>,
  list: RefObject<HTMLElement | null>,
): QueueMove {
  const { api } = useServices();
  const [failure, setFailure] = useState<MoveFailure>();
  const moving = useRef(false);
  const refocus = useRef<{ itemId: string; direction: MoveDirection } | undefined>(undefined);
  // The list as last rendered, for a move started from it.
  const latest = useRef(items);
  latest.current = items;

  const move = useCallback(
    async (itemId: string, direction: MoveDirection) => {
      const ids = movedOrder(latest.current, itemId, direction);
      if (!ids || moving.current) return;
      moving.current = true;
      setFailure(undefined);
      try {
        const result = await api.reorderQueue(sessionId, ids);
        setFailure(moveFailureOf(result));
        refocus.current = { itemId, direction };
        await reload();
      } finally {
        moving.current = false;
      }
    },
    [api, reload, sessionId],
  );

  useLayoutEffect(() => {
    const wanted = refocus.current;
    if (!wanted) return;
    refocus.current = undefined;
    const row = [...(list.current?.querySelectorAll<HTMLElement>('[data-item-id]') ?? [])].find(
      (element) => element.dataset.itemId === wanted.itemId,
    );
    const button = (direction: MoveDirection) =>
      row?.querySelector<HTMLButtonElement>(`[data-move="${direction}"]:not(:disabled)`);
    (button(wanted.direction) ?? button(wanted.direction === 'up' ? 'down' : 'up'))?.focus();
  }, [items, list]);

  return { move, failure };
}
