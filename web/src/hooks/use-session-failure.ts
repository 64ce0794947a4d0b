/**
 * `useSessionFailure`: why a failed session's agent stopped, read from the
 * session list once the session is seen failed (events carry the state, not
 * the reason), and whether it can never run again: the person its agent
 * acted for was deleted (`owner_deleted`, as recorded or as a restart's
 * refusal said). The failure banner shows it; the page offers no message to
 * a session that can never run again.
 */
import { useCallback, useEffect, useState } from 'react';
import { useServices } from '../app/services.js';
import type { SessionFailure } from '../../../src/wire/index.js';

export interface SessionFailureRead {
  /** `undefined` until read (or while the session is not failed), `null` when none is recorded. */
  failure: SessionFailure | null | undefined;
  /** It can never run again: its person was deleted. */
  ownerDeleted: boolean;
  /** A restart failed again: this is the reason now. */
  failedAgain: (failure: SessionFailure) => void;
  /** A restart was refused because its person was deleted, whatever the failure read said. */
  refusedForOwner: () => void;
}

export function useSessionFailure(
  sessionId: string,
  taskId: string | undefined,
  failed: boolean,
): SessionFailureRead {
  const { api } = useServices();
  const [failure, setFailure] = useState<SessionFailure | null>();
  const [ownerRefused, setOwnerRefused] = useState(false);

  useEffect(() => {
    setFailure(undefined);
    if (!failed || taskId === undefined) return;
    let cancelled = false;
    void api.sessions(taskId).then((result) => {
      if (cancelled || !result.ok) return;
      setFailure(
        result.value.sessions.find((session) => session.id === sessionId)?.failure ?? null,
      );
    });
    return () => {
      cancelled = true;
    };
  }, [api, failed, sessionId, taskId]);

  const refusedForOwner = useCallback(() => {
    setOwnerRefused(true);
  }, []);

  return {
    failure,
    ownerDeleted: ownerRefused || failure?.code === 'owner_deleted',
    failedAgain: setFailure,
    refusedForOwner,
  };
}
