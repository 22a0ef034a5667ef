import { toolResultCodeCatalogue } from '@platform/contracts';
import type { DocTable } from '@platform/testing';
import { apiErrorCatalogue, type ApiErrorSpec } from '../error-codes.js';

type Entry = [code: string, spec: ApiErrorSpec];

/** Codes answered with an HTTP status and documented, grouped by status in the catalogue's order. */
function byStatus(catalogue: Record<string, ApiErrorSpec>): Map<number, Entry[]> {
  const groups = new Map<number, Entry[]>();
  for (const [code, spec] of Object.entries(catalogue)) {
    if (spec.status === 'event' || spec.undocumented) continue;
    groups.set(spec.status, [...(groups.get(spec.status) ?? []), [code, spec]]);
  }
  return groups;
}

/** docs/api.md's "Errors" table: each status with its codes, each code with the catalogue's note. */
export function apiErrorTable(catalogue: Record<string, ApiErrorSpec> = apiErrorCatalogue): DocTable {
  return {
    file: 'docs/api.md',
    name: 'api-error-codes',
    header: ['Status', 'Codes'],
    rows: () =>
      [...byStatus(catalogue)].map(([status, entries]) => [
        String(status),
        entries.map(([code, spec]) => `\`${code}\`${spec.doc ? ` (${spec.doc})` : ''}`).join(', '),
      ]),
  };
}

type ToolResultCodeCatalogue = Record<string, { status: string; happened: string; codeNote?: string }>;

/**
 * docs/api.md's "Tool call error codes" table: one row per run of consecutive codes with the same
 * status and description.
 */
export function toolResultCodeTable(catalogue: ToolResultCodeCatalogue = toolResultCodeCatalogue): DocTable {
  return {
    file: 'docs/api.md',
    name: 'api-tool-call-error-codes',
    header: ['`status`', '`errorCode`', 'What happened'],
    rows: () => {
      const rows: { status: string; happened: string; codes: string[] }[] = [];
      for (const [code, spec] of Object.entries(catalogue)) {
        const cell = spec.codeNote ? `\`${code}\` (${spec.codeNote})` : `\`${code}\``;
        const last = rows.at(-1);
        if (last && last.status === spec.status && last.happened === spec.happened) last.codes.push(cell);
        else rows.push({ status: spec.status, happened: spec.happened, codes: [cell] });
      }
      return rows.map((row) => [`\`${row.status}\``, row.codes.join(', '), row.happened]);
    },
  };
}

/** Every table the api's docs generate from the error catalogues. */
export const errorDocTables: readonly DocTable[] = [apiErrorTable(), toolResultCodeTable()];
