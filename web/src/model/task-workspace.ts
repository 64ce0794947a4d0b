/**
 * Which workspace the New task form offers first: the one the person chose
 * last, while they are still a member of it, else their first. Kept in the
 * key store the caller passes (the browser's localStorage, so it outlives
 * the tab).
 */
import type { KeyStore } from './late-answer.js';

const KEY = 'clarion.new-task-workspace';

export function preferredWorkspace(
  store: KeyStore,
  workspaces: readonly { id: string }[],
): string | undefined {
  const last = store.getItem(KEY);
  return workspaces.find((workspace) => workspace.id === last)?.id ?? workspaces[0]?.id;
}

export function rememberWorkspace(store: KeyStore, workspaceId: string): void {
  store.setItem(KEY, workspaceId);
}
