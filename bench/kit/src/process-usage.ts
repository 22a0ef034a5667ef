import { readdir, readFile } from 'node:fs/promises';
import os from 'node:os';

/** CPU time (user + system) and resident memory of one process, from /proc (Linux). */
export interface ProcessSample {
  cpuMs: number;
  rssMiB: number;
}

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

export async function sampleProcess(pid: number): Promise<ProcessSample> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may contain spaces) start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const rssKiB = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return { cpuMs: ((utime + stime) * 1000) / TICKS_PER_SECOND, rssMiB: rssKiB / 1024 };
}

export function cpuCount(): number {
  return os.availableParallelism();
}

/**
 * CPU time of a process and all its descendants (e.g. a PostgreSQL postmaster and its backends),
 * in ms, those that ended included: a descendant that exited and was waited for has its CPU added
 * to its parent's children's times (`cutime`, `cstime`), which are counted, so the figure never
 * drops when a backend exits (a connection pool closing idle connections between two readings).
 * Only the tree of our own servers counts: other programs on the machine may run servers of the
 * same name.
 */
export async function cpuOfTree(rootPid: number): Promise<number> {
  const processes = new Map<number, { ppid: number; cpuMs: number }>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ticks = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
      processes.set(Number(entry), { ppid: Number(fields[1]), cpuMs: (ticks * 1000) / TICKS_PER_SECOND });
    } catch {
      // the process ended meanwhile
    }
  }
  const inTree = (pid: number): boolean => {
    for (
      let current: number | undefined = pid, depth = 0;
      current !== undefined && current > 1 && depth < 64;
      depth++
    ) {
      if (current === rootPid) return true;
      current = processes.get(current)?.ppid;
    }
    return false;
  };
  let total = 0;
  for (const [pid, p] of processes) if (inTree(pid)) total += p.cpuMs;
  return total;
}
