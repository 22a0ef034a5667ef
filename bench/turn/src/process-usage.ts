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

/** CPU time of every process whose command name is `name` (e.g. all PostgreSQL backends), in ms. */
export async function cpuOfCommand(name: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      if (comm !== name) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      total += ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
    } catch {
      // the process ended meanwhile
    }
  }
  return total;
}
