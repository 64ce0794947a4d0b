/**
 * The folder a session's agent works in: its profile's own, else its task's,
 * else Clarion's. One rule for where an agent starts and where an "Always
 * allow" holds, so a rule never answers in a folder its person did not allow
 * it in (a profile or Clarion moved to another checkout). Pure.
 */
export function agentFolder(
  profileCwd: string | undefined,
  taskCwd: string | null,
  agentCwd: string,
): string {
  return profileCwd ?? taskCwd ?? agentCwd;
}
