/**
 * `usePeopleNames(workspaceIds)`: user ID → name for the members of every
 * workspace given, read once per set of workspaces shown (a person is in a
 * few); empty until read, so a row names nobody rather than someone wrong.
 */
import { useEffect, useState } from 'react';
import { workspaceMembers } from '../model/members-api.js';

const NONE: ReadonlyMap<string, string> = new Map();

export function usePeopleNames(workspaceIds: readonly string[]): ReadonlyMap<string, string> {
  const key = [...new Set(workspaceIds)].sort().join(' ');
  const [names, setNames] = useState<{ of: string; names: ReadonlyMap<string, string> }>();
  useEffect(() => {
    if (key === '') return;
    let current = true;
    void Promise.all(key.split(' ').map((id) => workspaceMembers(id))).then((results) => {
      if (!current) return;
      const merged = new Map<string, string>();
      for (const result of results) {
        if (!result.ok) continue;
        for (const member of result.value.members) merged.set(member.user_id, member.user_name);
      }
      setNames({ of: key, names: merged });
    });
    return () => {
      current = false;
    };
  }, [key]);
  return names !== undefined && names.of === key ? names.names : NONE;
}
