/**
 * `useWorkspaceNames()`: workspace ID → name, for rows that say which
 * workspace a task is in. Empty while unread, when it cannot be read, and
 * when the person is in only one workspace: then every task is in it and
 * naming it says nothing.
 */
import { createContext, useEffect, useState } from 'react';
import { workspaces } from '../model/tasks-api.js';

const NONE: ReadonlyMap<string, string> = new Map();

/** Read once by the list, so its rows share one request. */
export const WorkspaceNames = createContext(NONE);

export function useWorkspaceNames(): ReadonlyMap<string, string> {
  const [names, setNames] = useState<ReadonlyMap<string, string>>(NONE);
  useEffect(() => {
    let current = true;
    void workspaces().then((result) => {
      if (!current || !result.ok || result.value.workspaces.length < 2) return;
      setNames(new Map(result.value.workspaces.map((each) => [each.id, each.name])));
    });
    return () => {
      current = false;
    };
  }, []);
  return names;
}
