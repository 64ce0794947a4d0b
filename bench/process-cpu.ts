/**
 * CPU time charged to processes, read from `/proc` (Linux): a server
 * process by its PID, and the PostgreSQL backends serving one database
 * (found by the database name in their process title, `postgres: user
 * database host(port) state`). The benchmarks report it per respond to tell
 * which side a ratio was bound by. A backend that exits between two readings
 * takes its time with it, so the database figure is a lower bound; the
 * server's shared workers (WAL writer, checkpointer, I/O workers) are not
 * counted at all.
 */
import { readdir, readFile } from 'node:fs/promises';

/** Linux's USER_HZ: `/proc/<pid>/stat` counts CPU time in hundredths of a second. */
const TICK_MS = 10;

/** User plus system CPU of `pid`, in ms; 0 once the process is gone. */
export async function processCpuMs(pid: number): Promise<number> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name, which may itself hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return 0;
  }
}

/** CPU of every live backend connected to `database`, in ms. */
export async function backendsCpuMs(database: string): Promise<number> {
  const title = new RegExp(`^postgres: \\S+ ${database} `);
  let total = 0;
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (title.test(cmdline)) total += await processCpuMs(Number(entry));
  }
  return total;
}
