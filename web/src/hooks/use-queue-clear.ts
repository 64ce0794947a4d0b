/**
 * Clearing the session queue: the server removes what is queued when the
 * clear arrives, then the list is fetched again. What the person confirmed
 * but the clear did not remove is told, item by item: it had left the queue
 * first (the agent took it between the list and the clear), or the server
 * kept it (it is listed again). A clear that failed as a whole says why.
 *
 * The outcome belongs to the queue, not to Clear: it stays on screen when
 * the clear left the queue empty and Clear is gone with it.
 */
import { useCallback, useRef, useState } from 'react';
import { useServices } from '../app/services.js';
import {
  clearFailureOf,
  clearMissesOf,
  type ClearMiss,
  type QueueFailure,
} from '../model/queue-controls.js';
import type { QueueItemView } from '../model/types.js';

export interface QueueClearing {
  /** Clears what the queue lists now; once the list was fetched again, says whether it cleared. */
  clear: () => Promise<boolean>;
  busy: boolean;
  /** Why the last clear did not happen. */
  failure: QueueFailure | undefined;
  /** What the last clear did not remove of what the person confirmed. */
  misses: readonly ClearMiss[];
  /** Forgets the last clear's outcome. */
  dismiss: () => void;
}

export function useQueueClear(
  sessionId: string,
  items: readonly QueueItemView[],
  reload: () => Promise<readonly QueueItemView[] | undefined>,
): QueueClearing {
  const { api } = useServices();
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<QueueFailure>();
  const [misses, setMisses] = useState<readonly ClearMiss[]>([]);
  // The list as last rendered: what the confirmation counted when the person confirmed.
  const latest = useRef(items);
  latest.current = items;

  const dismiss = useCallback(() => {
    setFailure(undefined);
    setMisses([]);
  }, []);

  const clear = useCallback(async () => {
    const confirmed = latest.current;
    setBusy(true);
    dismiss();
    const result = await api.clearQueue(sessionId);
    setBusy(false);
    setFailure(clearFailureOf(result));
    const listed = (await reload()) ?? latest.current;
    if (result.ok) setMisses(clearMissesOf(confirmed, result.value.removed, listed));
    return result.ok;
  }, [api, dismiss, reload, sessionId]);

  return { clear, busy, failure, misses, dismiss };
}
