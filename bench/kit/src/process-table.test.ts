import { describe, expect, it } from 'vitest';
import {
  cpuOfProcessTree,
  parseMachineCpu,
  postgresCpuByDatabase,
  readMachineCpu,
  readProcessTable,
  treeOf,
  type ProcessEntry,
} from './process-table.js';

const entry = (ppid: number, cpuMs: number, title: string, endedChildrenCpuMs = 0): ProcessEntry => ({
  ppid,
  cpuMs,
  endedChildrenCpuMs,
  title,
});

const cluster = new Map<number, ProcessEntry>([
  [9, entry(1, 1, 'sh -c postgres', 4)],
  [10, entry(9, 5, '/usr/lib/postgresql/16/bin/postgres -D /tmp/pg', 40)],
  [11, entry(10, 2, 'postgres: checkpointer')],
  [12, entry(10, 30, 'postgres: postgres bench_a 127.0.0.1(5001) idle')],
  [13, entry(10, 7, 'postgres: postgres bench_b 127.0.0.1(5002) idle in transaction')],
  [14, entry(10, 3, 'postgres: autovacuum worker bench_a')],
  [20, entry(1, 99, 'node something-else')],
]);

describe('process table', () => {
  it('reads this process from /proc with its command line', async () => {
    const table = await readProcessTable();
    expect(table.get(process.pid)?.title).toContain('node');
    expect(table.get(process.pid)?.ppid).toBe(process.ppid);
  });

  it('walks a tree from its root only', () => {
    expect(treeOf(cluster, 10).sort()).toEqual([10, 11, 12, 13, 14]);
    expect(cpuOfProcessTree(cluster, 10)).toBe(5 + 2 + 30 + 7 + 3 + 40);
    // Ended children count wherever in the tree they were waited for.
    expect(cpuOfProcessTree(cluster, 9)).toBe(1 + 4 + 5 + 2 + 30 + 7 + 3 + 40);
  });

  it('splits a PostgreSQL cluster by database; the rest (ended backends included) is shared', () => {
    const split = postgresCpuByDatabase(cluster, 9, ['bench_a', 'bench_b', 'bench_c']);
    expect(Object.fromEntries(split)).toEqual({ bench_a: 33, bench_b: 7, bench_c: 0, shared: 1 + 4 + 40 + 5 + 2 });
  });

  it("reads the machine's busy CPU from /proc/stat: user, nice, system, irq and softirq; not idle, iowait or steal", () => {
    const stat = 'cpu  100 20 30 5000 70 8 9 11 0 0\ncpu0 50 10 15 2500 35 4 4 5 0 0\nintr 1 2 3\n';
    expect(parseMachineCpu(stat)).toEqual({ busyMs: (100 + 20 + 30 + 8 + 9) * 10, stealMs: 110 });
    expect(() => parseMachineCpu('intr 1 2 3\n')).toThrow(/no aggregate cpu line/);
  });

  it('the machine is never less busy after a spin than before', async () => {
    const before = await readMachineCpu();
    const until = Date.now() + 30;
    while (Date.now() < until);
    const after = await readMachineCpu();
    expect(after.busyMs).toBeGreaterThan(before.busyMs);
  });
});
