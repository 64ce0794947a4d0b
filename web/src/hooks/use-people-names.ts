/**
 * `usePeopleNames(tasks)`: user ID → name for the members of every
 * workspace the tasks are in, from the app's one `NamesDirectory`; each
 * workspace is read once, again for a task's owner no read named or was
 * made for (someone who joined since), and whenever the person's access
 * changes. Empty until read, so a row names nobody rather than someone
 * wrong.
 */
import { useEffect, useMemo } from 'react';
import { useNames, useServices } from '../app/services.js';

const NONE: ReadonlyMap<string, string> = new Map();

export function usePeopleNames(
  tasks: readonly { workspace_id: string; created_by: string | null }[],
): ReadonlyMap<string, string> {
  const { names } = useServices();
  const { members } = useNames();
  // One key for the effect: each workspace with the owners its tasks name.
  const owners = new Map<string, Set<string>>();
  for (const task of tasks) {
    const of = owners.get(task.workspace_id) ?? new Set();
    if (task.created_by !== null) of.add(task.created_by);
    owners.set(task.workspace_id, of);
  }
  const key = [...owners]
    .map(([workspaceId, ids]) => [workspaceId, ...[...ids].sort()].join(' '))
    .sort()
    .join('\n');

  useEffect(() => {
    if (key === '') return;
    for (const line of key.split('\n')) {
      const [workspaceId = '', ...ownerIds] = line.split(' ');
      names.wantMembers(workspaceId, ownerIds);
    }
  }, [names, key]);

  return useMemo(() => {
    if (key === '') return NONE;
    const merged = new Map<string, string>();
    for (const line of key.split('\n')) {
      const workspaceId = line.split(' ')[0] ?? '';
      for (const [id, name] of members.get(workspaceId)?.names ?? []) merged.set(id, name);
    }
    return merged;
  }, [members, key]);
}
