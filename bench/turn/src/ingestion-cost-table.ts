// Prints where the ingestion A/B's turns spent CPU, process by process, and what they asked of
// the model, the embeddings endpoint and the ingestion queue, per turn (all rounds pooled).
import { OWN_ROWS, pooledPerTurn, SHARED_ROWS, type WindowCost } from './ingestion-usage.js';

export interface CostTableInput {
  on: WindowCost[];
  onThroughDrain: WindowCost[];
  off: WindowCost[];
  offThroughDrain: WindowCost[];
}

const fmt = (n: number, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : '-');

export function printCostTable(input: CostTableInput): void {
  const rows = [...OWN_ROWS, ...SHARED_ROWS];
  const cpu = (windows: WindowCost[], row: string) => pooledPerTurn(windows, (w) => w.cpuPerTurn.get(row));
  const total = (windows: WindowCost[]) =>
    pooledPerTurn(windows, (w) => [...w.cpuPerTurn.values()].reduce((a, b) => a + b, 0));
  process.stdout.write('\nCPU ms per turn, by process (measured phase; "+ drain" adds the queue drain after it)\n');
  process.stdout.write(
    '| process | on | on + drain | off | off + drain | on + drain - off + drain |\n|---|---|---|---|---|---|\n',
  );
  for (const row of rows) {
    const cells = [
      cpu(input.on, row),
      cpu(input.onThroughDrain, row),
      cpu(input.off, row),
      cpu(input.offThroughDrain, row),
    ];
    process.stdout.write(`| ${row} | ${cells.map((c) => fmt(c)).join(' | ')} | ${fmt(cells[1]! - cells[3]!)} |\n`);
  }
  const totals = [total(input.on), total(input.onThroughDrain), total(input.off), total(input.offThroughDrain)];
  process.stdout.write(`| **all** | ${totals.map((c) => fmt(c)).join(' | ')} | ${fmt(totals[1]! - totals[3]!)} |\n`);
  const machine = [
    pooledPerTurn(input.on, (w) => w.machinePerTurn),
    pooledPerTurn(input.onThroughDrain, (w) => w.machinePerTurn),
    pooledPerTurn(input.off, (w) => w.machinePerTurn),
    pooledPerTurn(input.offThroughDrain, (w) => w.machinePerTurn),
  ];
  process.stdout.write(
    `| whole machine (/proc/stat busy) | ${machine.map((c) => fmt(c)).join(' | ')} | ${fmt(machine[1]! - machine[3]!)} |\n`,
  );
  const unlisted = machine.map((m, i) => m - totals[i]!);
  process.stdout.write(
    `| not in the rows above (machine - all) | ${unlisted.map((c) => fmt(c)).join(' | ')} | ${fmt(unlisted[1]! - unlisted[3]!)} |\n`,
  );

  const keys = [
    ...new Set([...input.onThroughDrain, ...input.offThroughDrain].flatMap((w) => [...w.perTurn.keys()])),
  ].sort();
  process.stdout.write('\nCalls per turn (measured phase + drain)\n| per turn | on | off |\n|---|---|---|\n');
  for (const key of keys)
    process.stdout.write(
      `| ${key} | ${fmt(
        pooledPerTurn(input.onThroughDrain, (w) => w.perTurn.get(key)),
        3,
      )} | ${fmt(
        pooledPerTurn(input.offThroughDrain, (w) => w.perTurn.get(key)),
        3,
      )} |\n`,
    );
}
