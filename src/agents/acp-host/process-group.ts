/**
 * Signals and liveness of an agent's process group. Every agent is its own
 * group leader (spawned `detached`), so its wrapper's children (`sh -c`,
 * `npx`, npm launchers) share the group and die with it even after the
 * wrapper is gone and they hold its stdio pipes.
 *
 * A zombie is not alive: on a machine whose init does not reap orphans, a
 * killed grandchild stays a zombie in the group forever, and `kill(-pgid, 0)`
 * alone would report the group alive. On Linux `/proc` tells them apart.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Sends `signal` to every process of the group; false when none is left. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (error) {
    // ESRCH: the group is gone. EPERM: a member is no longer ours to signal; either way, done.
    if (isErrno(error, 'ESRCH') || isErrno(error, 'EPERM')) return false;
    throw error;
  }
}

/** Whether any process of the group is still running (zombies excluded where `/proc` tells). */
export function groupAlive(pgid: number): boolean {
  if (!signalGroup(pgid, 0)) return false;
  const members = procMembers(pgid);
  return members === undefined || members > 0;
}

/** Running (non-zombie) members of `pgid` from `/proc`; `undefined` where there is no `/proc`. */
function procMembers(pgid: number): number | undefined {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    // Not Linux: signal 0 is all there is to go on.
    return undefined;
  }
  let count = 0;
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      // Ended while the list was read: not a member any more.
      continue;
    }
    // After the command's closing parenthesis: state, ppid, pgrp.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X') count += 1;
  }
  return count;
}

function isErrno(error: unknown, code: string): boolean {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === code;
}
