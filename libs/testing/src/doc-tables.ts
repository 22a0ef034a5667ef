import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { workspaceRoot } from './service-process.js';

/**
 * A table in a doc that is generated from code (an error-code catalogue): the doc holds it between
 * `<!-- generated:NAME -->` and `<!-- /generated:NAME -->`, and a test checks that it is current.
 */
export interface DocTable {
  /** The doc, relative to the workspace root (`docs/api.md`). */
  file: string;
  /** The marker's name (`api-error-codes`). */
  name: string;
  /** The table's header cells. */
  header: readonly string[];
  /** The table's rows, each a list of Markdown cells (`|` is escaped here). */
  rows: () => ReadonlyArray<readonly string[]>;
}

const start = (name: string): string => `<!-- generated:${name} -->`;
const end = (name: string): string => `<!-- /generated:${name} -->`;

/** The table as Prettier writes it (the tree is formatted by Prettier, so the doc stays formatted). */
async function renderDocTable(table: DocTable): Promise<string> {
  const { format, resolveConfig } = await import('prettier');
  const line = (cells: readonly string[]): string => `| ${cells.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`;
  const markdown = [line(table.header), line(table.header.map(() => '---')), ...table.rows().map(line)].join('\n');
  const options = (await resolveConfig(path.join(workspaceRoot(), table.file))) ?? {};
  return (await format(markdown, { ...options, parser: 'markdown' })).trimEnd();
}

/** `text` with the table's generated block replaced by `rendered`; throws when the doc has no such block. */
function replaceDocTable(text: string, table: DocTable, rendered: string): string {
  const from = text.indexOf(start(table.name));
  const to = text.indexOf(end(table.name));
  if (from < 0 || to < from) throw new Error(`${table.file} has no ${start(table.name)} … ${end(table.name)} block`);
  return `${text.slice(0, from)}${start(table.name)}\n\n${rendered}\n\n${text.slice(to)}`;
}

/** The doc as it should read with every given table regenerated. */
async function regenerated(file: string, tables: readonly DocTable[]): Promise<{ current: string; wanted: string }> {
  const current = readFileSync(path.join(workspaceRoot(), file), 'utf8');
  let wanted = current;
  for (const table of tables.filter((t) => t.file === file))
    wanted = replaceDocTable(wanted, table, await renderDocTable(table));
  return { current, wanted };
}

/** Docs whose generated tables differ from what their code generates now. */
export async function staleDocTables(tables: readonly DocTable[]): Promise<string[]> {
  const stale: string[] = [];
  for (const file of new Set(tables.map((t) => t.file))) {
    const { current, wanted } = await regenerated(file, tables);
    if (current !== wanted) stale.push(file);
  }
  return stale;
}

/** Rewrites the generated tables in their docs; returns the docs that changed. */
export async function writeDocTables(tables: readonly DocTable[]): Promise<string[]> {
  const written: string[] = [];
  for (const file of new Set(tables.map((t) => t.file))) {
    const { current, wanted } = await regenerated(file, tables);
    if (current === wanted) continue;
    writeFileSync(path.join(workspaceRoot(), file), wanted);
    written.push(file);
  }
  return written;
}
