import { readdir, readFile } from 'node:fs/promises';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** One process as /proc shows it at one moment. */
export interface ProcessEntry {
  ppid: number;
  /** Its own CPU time (user + system), ms. */
  cpuMs: number;
  /** CPU time of its children that ended and were waited for (cutime + cstime), ms. */
  endedChildrenCpuMs: number;
  /** The command line with NULs as spaces; a PostgreSQL backend's shows its user and database. */
  title: string;
}

/** Every process on the machine, by pid (Linux /proc); processes that end while it is read are left out. */
export async function readProcessTable(): Promise<Map<number, ProcessEntry>> {
  const table = new Map<number, ProcessEntry>();
  await Promise.all(
    (await readdir('/proc'))
      .filter((entry) => /^\d+$/.test(entry))
      .map(async (entry) => {
        try {
          const [stat, cmdline] = await Promise.all([
            readFile(`/proc/${entry}/stat`, 'utf8'),
            readFile(`/proc/${entry}/cmdline`, 'utf8'),
          ]);
          // Fields after the command name (which may contain spaces) start after the last ')'.
          const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
          const ticks = (i: number) => Number(fields[i]);
          table.set(Number(entry), {
            ppid: ticks(1),
            cpuMs: ((ticks(11) + ticks(12)) * 1000) / TICKS_PER_SECOND,
            endedChildrenCpuMs: ((ticks(13) + ticks(14)) * 1000) / TICKS_PER_SECOND,
            title: cmdline.replace(/\0/g, ' ').trim(),
          });
        } catch {
          // the process ended meanwhile
        }
      }),
  );
  return table;
}

/** The pids of a process and all its descendants in the table. */
export function treeOf(table: ReadonlyMap<number, ProcessEntry>, rootPid: number): number[] {
  const children = new Map<number, number[]>();
  for (const [pid, p] of table) children.set(p.ppid, [...(children.get(p.ppid) ?? []), pid]);
  const out: number[] = [];
  const visit = (pid: number): void => {
    if (!table.has(pid) || out.includes(pid)) return;
    out.push(pid);
    for (const child of children.get(pid) ?? []) visit(child);
  };
  visit(rootPid);
  return out;
}

/**
 * CPU time (ms) of a process tree: every live member's own time, plus the time of the children each
 * member already waited for (so a process that ended stays counted in its parent, e.g. a PostgreSQL
 * backend in the postmaster, which may itself be a child of the launcher's root process).
 */
export function cpuOfProcessTree(table: ReadonlyMap<number, ProcessEntry>, rootPid: number): number {
  return treeOf(table, rootPid).reduce(
    (sum, pid) => sum + table.get(pid)!.cpuMs + table.get(pid)!.endedChildrenCpuMs,
    0,
  );
}

/**
 * A PostgreSQL cluster's CPU time (ms) by database: a backend (or autovacuum worker) names its
 * database in its process title (`postgres: <user> <database> <client> <state>`); the postmaster
 * (and the launcher above it), the background processes and backends that already ended are
 * `shared`. A backend that ends between two readings moves its time from its database to `shared`.
 */
export function postgresCpuByDatabase(
  table: ReadonlyMap<number, ProcessEntry>,
  postmasterPid: number,
  databases: readonly string[],
): Map<string, number> {
  const byDatabase = new Map<string, number>([...databases.map((d) => [d, 0] as const), ['shared', 0]]);
  for (const pid of treeOf(table, postmasterPid)) {
    const entry = table.get(pid)!;
    // Ended backends are known only as their parent's waited-for children: shared.
    byDatabase.set('shared', byDatabase.get('shared')! + entry.endedChildrenCpuMs);
    const words = entry.title.split(/\s+/);
    const database = words[0] === 'postgres:' ? databases.find((d) => words.slice(1, 4).includes(d)) : undefined;
    const key = database ?? 'shared';
    byDatabase.set(key, byDatabase.get(key)! + entry.cpuMs);
  }
  return byDatabase;
}

/** The machine's CPU time (ms, all cores) from the first line of /proc/stat: `busy` is what ran, `steal` what the hypervisor took. */
export interface MachineCpu {
  busyMs: number;
  stealMs: number;
}

/**
 * Parses /proc/stat's aggregate `cpu` line: busy = user + nice + system + irq + softirq (guest time
 * is already inside user and nice); idle, iowait and steal are not busy. Whatever a per-process
 * table misses (kernel threads, other services on the host, processes that ended unwaited) is in it.
 */
export function parseMachineCpu(procStat: string): MachineCpu {
  const line = procStat.split('\n').find((l) => /^cpu\s/.test(l));
  if (!line) throw new Error('/proc/stat has no aggregate cpu line');
  const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
  const ms = (ticks: number | undefined) => ((ticks ?? 0) * 1000) / TICKS_PER_SECOND;
  return { busyMs: ms(user) + ms(nice) + ms(system) + ms(irq) + ms(softirq), stealMs: ms(steal) };
}

export async function readMachineCpu(): Promise<MachineCpu> {
  return parseMachineCpu(await readFile('/proc/stat', 'utf8'));
}
