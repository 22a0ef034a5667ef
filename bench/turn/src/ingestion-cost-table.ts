// Prints where the ingestion A/B's turns spent CPU, process by process, and what they asked of
// the model, the embeddings endpoint and the ingestion queue, per turn (medians over rounds).
import { median } from '@platform/testing';
import { OWN_ROWS, SHARED_ROWS, type WindowCost } from './ingestion-usage.js';

export interface CostTableInput {
  on: WindowCost[];
  onThroughDrain: WindowCost[];
  off: WindowCost[];
  offThroughDrain: WindowCost[];
}

const fmt = (n: number, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : '-');
const med = (windows: WindowCost[], pick: (w: WindowCost) => number | undefined) => median(windows.map((w) => pick(w) ?? 0));

export function printCostTable(input: CostTableInput): void {
  const rows = [...OWN_ROWS, ...SHARED_ROWS];
  const cpu = (windows: WindowCost[], row: string) => med(windows, (w) => w.cpuPerTurn.get(row));
  const total = (windows: WindowCost[]) => med(windows, (w) => [...w.cpuPerTurn.values()].reduce((a, b) => a + b, 0));
  process.stdout.write('\nCPU ms per turn, by process (measured phase; "+ drain" adds the queue drain after it)\n');
  process.stdout.write('| process | on | on + drain | off | off + drain | on + drain - off + drain |\n|---|---|---|---|---|---|\n');
  for (const row of rows) {
    const cells = [cpu(input.on, row), cpu(input.onThroughDrain, row), cpu(input.off, row), cpu(input.offThroughDrain, row)];
    process.stdout.write(`| ${row} | ${cells.map((c) => fmt(c)).join(' | ')} | ${fmt(cells[1]! - cells[3]!)} |\n`);
  }
  const totals = [total(input.on), total(input.onThroughDrain), total(input.off), total(input.offThroughDrain)];
  process.stdout.write(`| **all** | ${totals.map((c) => fmt(c)).join(' | ')} | ${fmt(totals[1]! - totals[3]!)} |\n`);

  const keys = [...new Set([...input.onThroughDrain, ...input.offThroughDrain].flatMap((w) => [...w.perTurn.keys()]))].sort();
  process.stdout.write('\nCalls per turn (measured phase + drain)\n| per turn | on | off |\n|---|---|---|\n');
  for (const key of keys) process.stdout.write(`| ${key} | ${fmt(med(input.onThroughDrain, (w) => w.perTurn.get(key)), 3)} | ${fmt(med(input.offThroughDrain, (w) => w.perTurn.get(key)), 3)} |\n`);
}
