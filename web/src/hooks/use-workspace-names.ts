/**
 * `useWorkspaceNames()`: workspace ID → name, for rows that say which
 * workspace a task is in, from the app's one `NamesDirectory` (read again
 * whenever the person's access changes). Empty while unread, when it cannot
 * be read, and when the person is in only one workspace: then every task is
 * in it and naming it says nothing. `useWorkspaces()` is the list itself,
 * for New task and People.
 */
import { createContext, useEffect, useMemo } from 'react';
import type { WorkspaceView } from '../../../src/wire/index.js';
import { useNames, useServices } from '../app/services.js';
import type { ApiFailure } from '../model/api.js';

const NONE: ReadonlyMap<string, string> = new Map();

/** Read once by the list, so its rows share one map. */
export const WorkspaceNames = createContext(NONE);

export function useWorkspaces(): {
  workspaces: readonly WorkspaceView[] | undefined;
  error: ApiFailure | undefined;
} {
  const { names } = useServices();
  const { workspaces, workspacesError } = useNames();
  useEffect(() => {
    names.wantWorkspaces();
  }, [names]);
  return { workspaces, error: workspacesError };
}

export function useWorkspaceNames(): ReadonlyMap<string, string> {
  const { workspaces } = useWorkspaces();
  return useMemo(
    () =>
      workspaces === undefined || workspaces.length < 2
        ? NONE
        : new Map(workspaces.map((each) => [each.id, each.name])),
    [workspaces],
  );
}
