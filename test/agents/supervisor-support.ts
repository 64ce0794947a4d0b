/**
 * What the supervisor suites share: a REST client for the built server, and
 * the check that no process of an agent's group survives.
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface ApiReply {
  status: number;
  json: Record<string, unknown>;
}

export function clarionApi(url: string, token: string) {
  return async (method: string, path: string, body?: unknown): Promise<ApiReply> => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, json: (text === '' ? {} : JSON.parse(text)) as never };
  };
}

/**
 * Whether no process of group `pgid` runs any more: `kill(-pgid, 0)` says
 * ESRCH, or every member left is a zombie. The second case is this kind of
 * machine: its init does not reap orphans, so a killed grandchild stays a
 * zombie in its group for good, though nothing of it runs.
 */
export function groupGone(pgid: number): boolean {
  if (pgid <= 0) throw new Error('no process group to check');
  try {
    process.kill(-pgid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return true;
    throw error;
  }
  return runningMembers(pgid).length === 0;
}

function runningMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === pgid && state !== 'Z') members.push(Number(entry));
    } catch {
      // Ended while the list was read: not running.
    }
  }
  return members;
}

/** Live direct children of `pid`, from /proc. */
export function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(ppid) === pid && state !== 'Z') children.push(Number(entry));
    } catch {
      // Ended while the list was read.
    }
  }
  return children;
}
