/** A plain-text table: a header row, then one row per item, columns padded to their widest cell. */
export function table(
  headers: readonly string[],
  rows: ReadonlyArray<ReadonlyArray<string | number | boolean | null | undefined>>,
): string {
  const cells = [
    headers.map(String),
    ...rows.map((row) => row.map((cell) => (cell === null || cell === undefined || cell === '' ? '-' : String(cell)))),
  ];
  const widths = headers.map((_, i) => Math.max(...cells.map((row) => (row[i] ?? '').length)));
  return `${cells.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')).join('\n')}\n`;
}

/** `key: value` lines, keys aligned. */
export function fields(
  entries: ReadonlyArray<readonly [string, string | number | boolean | null | undefined]>,
): string {
  const width = Math.max(...entries.map(([key]) => key.length));
  return `${entries.map(([key, value]) => `${`${key}:`.padEnd(width + 1)} ${value === null || value === undefined || value === '' ? '-' : String(value)}`).join('\n')}\n`;
}

/** Text cut to `max` characters with a marker, on one line. */
export function oneLine(text: string, max = 120): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
