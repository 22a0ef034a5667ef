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

/** Every table the api's docs generate from its error catalogue. */
export const errorDocTables: readonly DocTable[] = [apiErrorTable()];
